"""YAML alias bombs ("billion laughs"): about 1 KB of text whose aliases expand to 9^9 scalars."""

from __future__ import annotations


def billion_laughs(levels: int = 9, width: int = 9, indent: int = 0) -> str:
    """Anchors `l0` .. `l<levels>`, each a list of `width` aliases of the one before."""
    lines = ['l0: &l0 ["lol"]']
    for level in range(1, levels + 1):
        aliases = ", ".join([f"*l{level - 1}"] * width)
        lines.append(f"l{level}: &l{level} [{aliases}]")
    return "".join(" " * indent + line + "\n" for line in lines)


def bomb_manifest(name: str = "laughs") -> str:
    """A ConfigMap carrying the bomb in a field of its own."""
    return (
        f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}}}\n"
        f"laughs:\n{billion_laughs(indent=2)}data: {{a: b}}\n"
    )


def bomb_values(values: str = "replicas: 1\n") -> str:
    return f"{values}laughs:\n{billion_laughs(indent=2)}"
