"""Which `.Values` paths one template body reads, and which templates it calls with what (pure).

A body is evaluated abstractly: each operand is bound to what it denotes, a chart's root context
(`Root`), a values node (`ValuesAt`), a `dict` or `list` of those, or nothing known (None). The forms
followed:

- `.Values.a.b`, `$.Values.a.b`, `$ctx.Values.a`, `.context.Values.a` (any chain through `Values`);
- `index .Values "a" "b"` (a key that is not a string literal reads every key: `*`), `get`, `dig`;
- `(.Values.a).b`, and values passed through `default`, `required`, `deepCopy`, `merge*`, `pick`;
- variables: `$v := .Values.a` then `$v.b`; `$ctx := .context` then `$ctx.Values.a`;
- `with .Values.a` then `.b` or `.` inside; `range .Values.a` (and `range $k, $v := ...`), whose
  element reads are `a.*...`;
- `dict "k" .Values.a ...` and `list $ .` passed to `include`/`template`: the callee's `.k.b` reads
  `a.b`, and `index . 0` is the root again.

Not followed (documented gaps): templates inside values rendered with `tpl`; `set`/`unset` on dicts;
values reached through `.Files`, `lookup`, `fromYaml` of a string; dynamic template names other than
`print $.Template.BasePath "/x.yaml"`. A read of `.Values` whole (e.g. `toYaml .Values`) is kept as
the empty path: it reads every key. Reads of `.Chart.<field>` are kept apart (`chart_fields`): they
tie a field to the chart's Chart.yaml.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from aftershock.provenance.gotemplate import (
    Action,
    Command,
    Field,
    Ident,
    Lit,
    Operand,
    Paren,
    Pipeline,
    Str,
    Var,
)


@dataclass(frozen=True)
class Root:
    """A chart's root context: `.Values`, `.Release`, `.Chart`, ..."""


ROOT = Root()
WILDCARD = "*"


@dataclass(frozen=True)
class ValuesAt:
    path: tuple[str, ...]


@dataclass(frozen=True)
class DictOf:
    entries: tuple[tuple[str, Binding], ...]


@dataclass(frozen=True)
class ListOf:
    items: tuple[Binding, ...]


@dataclass(frozen=True)
class ChartField:
    """`.Chart.AppVersion` and the like: a field of the rendered chart's Chart.yaml ("" for `.Chart`)."""

    name: str


Binding = Root | ValuesAt | DictOf | ListOf | ChartField | None


@dataclass(frozen=True)
class Call:
    """`include`/`template` of a named template (`name`), or of a template file of the rendered chart
    (`file`, chart-relative, from `print $.Template.BasePath "/x.yaml"`), with its argument's binding."""

    arg: Binding
    name: str | None = None
    file: str | None = None


@dataclass
class BodyReads:
    """What one body read (values paths, possibly with `*` segments) and which templates it called."""

    paths: set[tuple[str, ...]] = field(default_factory=set)
    calls: list[Call] = field(default_factory=list)
    chart_fields: set[str] = field(default_factory=set)


# Functions whose result is (one of) their argument(s): index of the argument, -1 for the last.
_PASS_THROUGH = {
    "default": -1,
    "required": -1,
    "deepCopy": 0,
    "mustDeepCopy": 0,
    "merge": 0,
    "mustMerge": 0,
    "mergeOverwrite": 0,
    "mustMergeOverwrite": 0,
    "pick": 0,
    "omit": 0,
}
_LOOKUPS = ("index", "get")


@dataclass
class _Frame:
    dot: Binding
    variables: dict[str, Binding]


class _Evaluator:
    def __init__(self, dot: Binding) -> None:
        self.dot: Binding = dot
        self.root: Binding = dot
        self.variables: dict[str, Binding] = {}
        self.out = BodyReads()

    def record(self, binding: Binding) -> None:
        if isinstance(binding, ValuesAt):
            self.out.paths.add(binding.path)
        elif isinstance(binding, ChartField):
            self.out.chart_fields.add(binding.name)

    def operand(self, op: Operand) -> Binding:
        if isinstance(op, Field):
            return apply(self.dot, op.chain)
        if isinstance(op, Var):
            start = self.root if op.name == "" else self.variables.get(op.name)
            return apply(start, op.chain)
        if isinstance(op, Paren):
            return apply(self.pipeline(op.pipeline), op.chain)
        return None

    def pipeline(self, pipe: Pipeline) -> Binding:
        """The binding of a pipeline's result; function arguments are recorded on the way."""
        value: Binding = None
        for index, command in enumerate(pipe.commands):
            value = self.command(command, value, piped=index > 0)
        return value

    def command(self, command: Command, piped_value: Binding, *, piped: bool) -> Binding:
        head = command[0]
        if not isinstance(head, Ident):
            for extra in command[1:]:  # a method call's arguments
                self.record(self.operand(extra))
            return self.operand(head)
        args = list(command[1:])
        values = [self.operand(a) for a in args] + ([piped_value] if piped else [])
        return self.function(head.name, args, values)

    def function(self, name: str, args: list[Operand], values: list[Binding]) -> Binding:
        if name in ("include", "template"):
            self.call(args, values)
            return None
        if name in _LOOKUPS and values:
            return lookup(values[0], [_key(a) for a in args[1:]])
        if name == "dig" and len(values) >= 2:
            self.record(values[-2])  # the default
            return lookup(values[-1], [_key(a) for a in args[: len(values) - 2]])
        if name == "dict":
            pairs = zip(args[0::2], values[1::2])
            return DictOf(tuple((a.value, v) for a, v in pairs if isinstance(a, Str)))
        if name == "list":
            return ListOf(tuple(values))
        kept = _PASS_THROUGH.get(name)
        for index, value in enumerate(values):
            if kept is None or index != (kept % len(values)):
                self.record(value)
        return values[kept] if kept is not None and values else None

    def call(self, args: list[Operand], values: list[Binding]) -> None:
        if not args:
            return
        arg = values[1] if len(values) > 1 else None
        if isinstance(args[0], Str):
            self.out.calls.append(Call(arg, name=args[0].value))
        elif (path := _template_file(args[0])) is not None:
            self.out.calls.append(Call(arg, file=path))
        for extra in values[2:]:
            self.record(extra)


def _key(op: Operand) -> str:
    if isinstance(op, Str):
        return op.value
    if isinstance(op, Lit) and op.text.isdigit():
        return op.text
    return WILDCARD


def _template_file(op: Operand) -> str | None:
    """`(print $.Template.BasePath "/configmap.yaml")` -> `templates/configmap.yaml`."""
    if not isinstance(op, Paren) or len(op.pipeline.commands) != 1 or op.chain:
        return None
    command = op.pipeline.commands[0]
    if len(command) != 3 or command[0] != Ident("print") or not isinstance(command[2], Str):
        return None
    base = command[1]
    if isinstance(base, (Var, Field)) and base.chain == ("Template", "BasePath"):
        return "templates/" + command[2].value.lstrip("/")
    return None


def apply(binding: Binding, chain: tuple[str, ...]) -> Binding:
    """Follow a field chain from a binding. An unknown start followed by `Values` is taken for a
    chart's root context (`.context.Values.x`, `$root.Values.x`)."""
    current = binding
    for name in chain:
        if isinstance(current, ValuesAt):
            current = ValuesAt(current.path + (name,))
        elif isinstance(current, DictOf):
            current = dict(current.entries).get(name)
        elif name == "Values" and (current is None or isinstance(current, Root)):
            current = ValuesAt(())
        elif name == "Chart" and isinstance(current, Root):
            current = ChartField("")
        elif isinstance(current, ChartField) and not current.name:
            current = ChartField(name)
        else:
            current = None
    return current


def lookup(binding: Binding, keys: list[str]) -> Binding:
    """`index`/`get`/`dig` with literal keys (WILDCARD for computed ones)."""
    current = binding
    for key in keys:
        if isinstance(current, ListOf):
            current = (
                current.items[int(key)] if key.isdigit() and int(key) < len(current.items) else None
            )
        elif isinstance(current, Root):
            current = ValuesAt(()) if key == "Values" else None
        else:
            current = apply(current, (key,)) if current is not None else None
    return current


def element(binding: Binding) -> Binding:
    """What `range` binds each element of a values node to."""
    return ValuesAt(binding.path + (WILDCARD,)) if isinstance(binding, ValuesAt) else None


def body_reads(body: list[Action], dot: Binding) -> BodyReads:
    """Evaluate one body (a file's top level, or a define) with `.` and `$` bound to `dot`."""
    ev = _Evaluator(dot)
    stack: list[_Frame] = []
    for action in body:
        _step(ev, stack, action)
    return ev.out


def _step(ev: _Evaluator, stack: list[_Frame], action: Action) -> None:
    pipe = action.pipeline
    match action.kind:
        case "if" | "with" | "range" | "block":
            value = ev.pipeline(pipe) if pipe is not None else None
            stack.append(_Frame(ev.dot, dict(ev.variables)))
            _enter(ev, action, value)
        case "else" | "else_if" | "else_with":
            if stack:
                ev.dot, ev.variables = stack[-1].dot, dict(stack[-1].variables)
            value = ev.pipeline(pipe) if pipe is not None else None
            if action.kind == "else_with":
                ev.dot = value
            elif action.kind == "else_if":
                ev.record(value)
        case "end":
            if stack:
                frame = stack.pop()
                ev.dot, ev.variables = frame.dot, frame.variables
        case "template":
            value = ev.pipeline(pipe) if pipe is not None else None
            if action.name is not None:
                ev.out.calls.append(Call(value, name=action.name))
        case "expr" if pipe is not None:
            value = ev.pipeline(pipe)
            if pipe.declares:
                ev.variables[pipe.declares[-1]] = value
                for name in pipe.declares[:-1]:
                    ev.variables[name] = None
            else:
                ev.record(value)


def _enter(ev: _Evaluator, action: Action, value: Binding) -> None:
    pipe = action.pipeline
    ev.record(value)  # the condition decides whether the block renders at all
    if action.kind == "with":
        ev.dot = value
        if pipe is not None and pipe.declares:
            ev.variables[pipe.declares[-1]] = value
    elif action.kind == "range":
        ev.dot = element(value)
        if pipe is not None and pipe.declares:
            ev.variables[pipe.declares[-1]] = ev.dot
            for name in pipe.declares[:-1]:
                ev.variables[name] = None
    elif (
        action.kind == "block" and action.name is not None
    ):  # a block inside a define: call it here
        ev.dot = value
        ev.out.calls.append(Call(value, name=action.name))
