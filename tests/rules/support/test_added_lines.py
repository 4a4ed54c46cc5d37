"""The lines a change adds, searched as one text: the first line holding a word, as a line-by-line
search finds it."""

from __future__ import annotations

from aftershock.rules.support.added_lines import AddedLine, AddedText, word_pattern

LINES = (
    AddedLine(3, "image: nginx:1.25"),
    AddedLine(4, "hostNetwork: true"),
    AddedLine(9, "  name: web-hostNetwork"),
    AddedLine(10, "hostNetwork"),
)


def _by_line(pattern):
    return next((a for a in LINES if pattern.search(a.text)), None)


def test_the_first_line_holding_a_word_is_the_one_a_line_by_line_search_finds():
    text = AddedText(LINES)
    for word in ("hostNetwork", "nginx", "web", "true", "name", "1.25", "absent", "image: nginx"):
        assert text.first(word_pattern(word)) == _by_line(word_pattern(word)), word
    assert text.first(word_pattern("hostNetwork")) == LINES[1]


def test_a_word_at_a_lines_start_or_end_is_bounded_by_the_line_not_its_neighbours():
    text = AddedText((AddedLine(1, "a-"), AddedLine(2, "b"), AddedLine(5, "x"), AddedLine(6, "-y")))
    assert text.first(word_pattern("b")) == AddedLine(2, "b")  # after "a-": the break bounds it
    assert text.first(word_pattern("x")) == AddedLine(5, "x")  # before "-y": likewise
    assert text.first(word_pattern("y")) is None  # "-y" holds no whole word y, on its own line
    assert AddedText(()).first(word_pattern("a")) is None


def test_lines_beside_a_change_point_at_its_first_added_line():
    from aftershock.model.change import Hunk
    from aftershock.rules.support.added_lines import lines_beside

    guarded = Hunk(
        10, 3, 10, 4, "", (" ok: 1", "+{{- if .Values.on }}", " - alert: Gone", "-old: 2")
    )
    dropped = Hunk(30, 2, 31, 1, "", (" keep: 1", "-removed: 2"))
    beside = AddedText(tuple(lines_beside([guarded, dropped])))
    assert beside.first(word_pattern("Gone")) == AddedLine(11, "- alert: Gone")
    assert beside.first(word_pattern("old")) == AddedLine(11, "old: 2")
    # a hunk that adds nothing points where it starts at head
    assert beside.first(word_pattern("removed")) == AddedLine(31, "removed: 2")
    assert beside.first(word_pattern("on")) is None  # added lines are not beside themselves
