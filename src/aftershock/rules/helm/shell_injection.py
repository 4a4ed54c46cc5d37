"""Rule shell-values-injection: a template splices values into a shell script (`sh -c`, unquoted heredoc)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from aftershock.findings.model import (
    Category,
    Confidence,
    Delta,
    Evidence,
    Fact,
    Location,
    PathStep,
    Severity,
    Subject,
    SubjectKind,
)
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.shell import Splice, splices
from aftershock.rules.support.sources import files_under, library_dependencies

TEMPLATE_SUFFIXES = (".yaml", ".yml", ".tpl")


def _template_splices(
    texts: Mapping[str, str], folders: tuple[str, ...], read: dict[str, tuple[Splice, ...]]
) -> dict[tuple[str, str], Splice]:
    """(template, values path) -> its first splice, over the templates of the folders. A text is
    read once (`read`, text -> its splices): a library chart's templates are read for every chart
    including it, and an unchanged template is the same text at both refs."""
    found: dict[tuple[str, str], Splice] = {}
    for folder in folders:
        for path, text in files_under(texts, f"{folder}/templates", TEMPLATE_SUFFIXES):
            if text not in read:
                read[text] = tuple(splices(text))
            for splice in read[text]:
                found.setdefault((path, splice.values_path), splice)
    return found


def _released(ctx: RuleContext, chart: str) -> bool:
    """A release of the review installs the chart with its own values: whoever writes that release
    (a tenant's HelmRelease) controls what reaches the script."""
    return any(review.release for review in ctx.review.chart_reviews if review.chart == chart)


def _concern(
    ctx: RuleContext, chart: str, key: tuple[str, str], splice: Splice, delta: Delta
) -> Concern:
    template, values_path = key
    released = _released(ctx, chart)
    what = {
        "tpl": "values evaluated with tpl",
        "toYaml": "values as YAML/JSON",
        "include": "values rendered through a named template",
        "value": "values",
    }[splice.function]
    who = " that a release sets" if released else ""
    verb = "no longer splices" if delta is Delta.RESOLVED else "splices"
    return Concern(
        subject=Subject(
            SubjectKind.FILE, f"{template}#{values_path}", template, f".Values.{values_path}"
        ),
        message=f"{template}:{splice.line} {verb} .Values.{values_path} into a shell script ({splice.context}): "
        f"it writes {what}{who} unquoted, so `$(...)`, backticks or `;` in them run as commands",
        delta=delta,
        severity=Severity.HIGH
        if released
        else Severity.MEDIUM
        if splice.function != "value"
        else None,
        location=Location(template, splice.line),
        path=(
            PathStep("values_key", values_path, "user values"),
            PathStep("file", template, f"line {splice.line}: {splice.context}"),
        ),
        facts=(
            Fact("values_path", values_path),
            Fact("function", splice.function),
            Fact("context", splice.context),
            Fact("released", released),
        ),
        scope_paths=(chart, template),
    )


def check(ctx: RuleContext) -> Iterator[Concern]:
    read: dict[str, tuple[Splice, ...]] = {}
    for chart in sorted({affected.chart for affected in ctx.review.affected}):
        folders = (chart, *library_dependencies(ctx.review, chart))
        base = _template_splices(ctx.sources.base, folders, read)
        head = _template_splices(ctx.sources.head, folders, read)
        for key in sorted(head.keys() | base.keys()):
            if key in head:
                delta = Delta.PRE_EXISTING if key in base else Delta.INTRODUCED
                yield _concern(ctx, chart, key, head[key], delta)
            elif key[0] in ctx.sources.head:
                yield _concern(ctx, chart, key, base[key], Delta.RESOLVED)


RULE = Rule(
    id="shell-values-injection",
    title="Values spliced into a shell script",
    category=Category.SECURITY,
    severity=Severity.LOW,
    confidence=Confidence.MEDIUM,
    evidence=Evidence.INFERRED,
    needs_sources=True,
    check=check,
    doc=RuleDoc(
        what="Template actions that write `.Values` into a shell script: the argument after `-c` of "
        "`sh`/`bash`/`ash`/`dash`/`zsh` in a command or args list (block or flow style), or the body of an "
        "unquoted heredoc (`<<EOF`). Plain values are low; `tpl`, `toYaml`, `toJson` and a named template "
        'given values (`include "x" .Values.y`) medium, since their text is structured and arbitrary; '
        "high when a release of the review installs the chart, since whoever writes that release's values "
        "(a tenant) then controls the script. An action whose pipeline ends in `int`, `float64`, `len`, "
        "`b64enc`, a hash or `squote` is not a splice, nor are `if`, `range`, `with` and assignments. Read "
        "from the template text, so inferred.",
        why="The shell parses the rendered text: a value holding `$(curl ...)`, backticks, `;` or a newline "
        "runs as a command inside the container, with its service account and mounts. Double quotes "
        "(`quote`) do not help, `$(...)` still expands; `tpl` even evaluates the value as a template first.",
        example="    command: [/bin/sh, -c]\n    args:\n      - |\n        cat > /etc/app.yaml <<EOF\n"
        "        {{ toYaml .Values.config | indent 8 }}\n        EOF",
        fix="Pass values through the environment (`env: [{name: TARGET, value: {{ .Values.target | quote "
        '}}}]`) and use "$TARGET" in the script, mount them as a ConfigMap file instead of a heredoc, or '
        "quote the heredoc delimiter (`<<'EOF'`) so the shell does not expand its body.",
    ),
)
