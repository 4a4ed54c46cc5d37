"""The persistent render cache around the real SdkRenderer: hits, misses, merged requests, errors, eviction."""

from __future__ import annotations

import base64
import os
import shutil
import time
from pathlib import Path

from aftershock.model.review import is_deterministic_error
from aftershock.render.caching.cache import (
    CacheEntry,
    CachingRenderer,
    DiskRenderCache,
    MemoryRenderCache,
    default_render_cache_dir,
    open_render_cache,
)
from aftershock.render.caching.digest import chart_digest
from aftershock.render.helm.sdk import SdkRenderer
from aftershock.render.helm.values import values_error
from aftershock.render.interface import RenderRequest
from aftershock.render.limits import oversize_error, timeout_error

CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-cm
data:
  greeting: {{ .Values.greeting | quote }}
  kube: {{ .Capabilities.KubeVersion.Version | quote }}
"""


def write_chart(
    root: Path, name: str, templates: dict[str, str], values: str = "greeting: hello\n"
) -> Path:
    chart = root / name
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text(f"apiVersion: v2\nname: {name}\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text(values)
    for path, text in templates.items():
        (chart / "templates" / path).write_text(text)
    return chart


def caching(renderer, folder: Path, max_bytes: int = 1 << 20) -> CachingRenderer:
    """A cache as a new aftershock process would open it: empty memory, the disk folder as left."""
    return CachingRenderer(renderer, open_render_cache(folder, max_bytes))


def test_a_second_identical_render_is_a_hit_and_a_changed_template_byte_a_miss(tmp_path, renderer):
    chart = write_chart(tmp_path / "work1", "web", {"cm.yaml": CONFIGMAP})
    request = RenderRequest(str(chart), values={"greeting": "hi"}, kube_version="v1.30.0")
    first = caching(renderer, tmp_path / "cache")
    (rendered,) = first.render_many([request])
    assert rendered.ok and 'greeting: "hi"' in rendered.manifests["web/templates/cm.yaml"]
    assert (first.stats.hits, first.stats.misses) == (0, 1)

    second = caching(renderer, tmp_path / "cache")
    moved = shutil.copytree(
        chart, tmp_path / "work2" / "web"
    )  # content-addressed: the folder does not matter
    (again,) = second.render_many(
        [RenderRequest(str(moved), values={"greeting": "hi"}, kube_version="v1.30.0")]
    )
    assert (second.stats.hits, second.stats.misses) == (1, 0)
    assert again.manifests == rendered.manifests and again.request.chart_dir == str(moved)

    (moved / "templates" / "cm.yaml").write_text(CONFIGMAP.replace("-cm", "-cn"))
    (changed,) = second.render_many(
        [RenderRequest(str(moved), values={"greeting": "hi"}, kube_version="v1.30.0")]
    )
    assert (second.stats.hits, second.stats.misses) == (1, 1)
    assert "name: release-cn" in changed.manifests["web/templates/cm.yaml"]


def test_files_the_charts_helmignore_names_are_not_part_of_the_key(tmp_path, renderer):
    files_template = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: files\ndata:\n  notes: {{ .Files.Get "NOTES.md" | quote }}\n'
    chart = write_chart(tmp_path, "web", {"cm.yaml": CONFIGMAP, "files.yaml": files_template})
    (chart / ".helmignore").write_text("# test suites are not part of the chart\ntests/\n*.bak\n")
    (chart / "tests").mkdir()
    (chart / "tests" / "cm_test.yaml").write_text("suite: cm\n")
    (chart / "NOTES.md").write_text("first\n")
    before = chart_digest(str(chart))
    (chart / "tests" / "cm_test.yaml").write_text("suite: cm, edited\n")
    (chart / "templates" / "old.yaml.bak").write_text("not: a template\n")
    assert chart_digest(str(chart)) == before  # Helm never loads them
    cache = caching(renderer, tmp_path / "cache")
    (first,) = cache.render_many([RenderRequest(str(chart), values={})])
    (chart / "NOTES.md").write_text("second\n")  # loaded (.Files), so part of the key
    assert chart_digest(str(chart)) != before
    (second,) = cache.render_many([RenderRequest(str(chart), values={})])
    assert (cache.stats.hits, cache.stats.misses) == (0, 2)
    assert 'notes: "first\\n"' in first.manifests["web/templates/files.yaml"]
    assert 'notes: "second\\n"' in second.manifests["web/templates/files.yaml"]
    (chart / ".helmignore").write_text("tests/\n")  # the .bak file is loaded now: a new key
    changed = chart_digest(str(chart))
    (chart / "templates" / "old.yaml.bak").unlink()
    assert chart_digest(str(chart)) != changed


def test_values_and_every_request_option_are_part_of_the_key(tmp_path, renderer):
    chart = write_chart(tmp_path, "web", {"cm.yaml": CONFIGMAP})
    cache = caching(renderer, tmp_path / "cache")
    base = RenderRequest(str(chart), values={"greeting": "hi", "a": {"b": 1, "c": 2}})
    variants = [
        base,
        RenderRequest(
            str(chart), values={"a": {"c": 2, "b": 1}, "greeting": "hi"}
        ),  # same values, other order
        RenderRequest(str(chart), values={"greeting": "ho"}),
        RenderRequest(str(chart), release_name="other"),
        RenderRequest(str(chart), kube_version="v1.29.0"),
        RenderRequest(str(chart), namespace="ns"),
        RenderRequest(str(chart), revision=2),
        RenderRequest(str(chart), is_upgrade=True),
        RenderRequest(str(chart), api_versions=("example.com/v1",)),
    ]
    outcomes = cache.render_many(variants)
    assert all(outcome.ok for outcome in outcomes)
    assert (cache.stats.hits, cache.stats.misses, cache.stats.merged) == (0, 8, 1)
    assert outcomes[1].manifests == outcomes[0].manifests


def test_identical_requests_in_one_batch_are_rendered_once_and_all_reported(tmp_path, renderer):
    chart = write_chart(tmp_path, "web", {"cm.yaml": CONFIGMAP})
    cache = caching(renderer, tmp_path / "cache")
    seen = []
    outcomes = cache.render_many([RenderRequest(str(chart))] * 3, seen.append)
    assert (cache.stats.misses, cache.stats.merged) == (1, 2)
    assert len(seen) == 3 and outcomes[0].manifests == outcomes[2].manifests
    seen.clear()
    cache.render_many([RenderRequest(str(chart))] * 2, seen.append)
    assert cache.stats.hits == 2 and len(seen) == 2


def test_a_chart_that_renders_differently_each_time_is_never_cached_or_merged(tmp_path, renderer):
    chart = write_chart(
        tmp_path, "web", {"secret.yaml": "kind: Secret\ntoken: {{ randAlphaNum 24 }}\n"}
    )
    cache = caching(renderer, tmp_path / "cache")
    first, second = cache.render_many([RenderRequest(str(chart))] * 2)
    assert (
        first.manifests != second.manifests
    )  # really rendered twice, as the pipeline's stability check needs
    tpl = write_chart(
        tmp_path, "tpl", {"cm.yaml": "kind: X\nv: {{ tpl .Values.v . }}\n"}, values="v: x\n"
    )
    cache.render_many([RenderRequest(str(tpl), values={"v": '{{ now | date "15:04" }}'})])
    assert (cache.stats.uncacheable, cache.stats.misses, cache.stats.hits) == (3, 0, 0)
    assert not (tmp_path / "cache").exists()


def test_function_names_outside_template_actions_leave_a_chart_cacheable(tmp_path, renderer):
    crd = "kind: CustomResourceDefinition\nschema:\n  format: date-time  # now and then\n"
    chart = write_chart(
        tmp_path, "web", {"cm.yaml": "kind: X\n# rotated now and then\nv: {{ .Values.greeting }}\n"}
    )
    (chart / "crds").mkdir()
    (chart / "crds" / "crd.yaml").write_text(crd)
    cache = caching(renderer, tmp_path / "cache")
    cache.render_many([RenderRequest(str(chart), values={"date": "2026-11-29"})] * 2)
    assert (cache.stats.uncacheable, cache.stats.misses, cache.stats.merged) == (0, 1, 1)
    (chart / "templates" / "cm.yaml").write_text(
        'kind: X\nv: {{- /* a comment */ -}} {{ now | date "15:04" }}\n'
    )
    cache.render_many([RenderRequest(str(chart))])
    assert cache.stats.uncacheable == 1


def test_a_function_name_in_a_string_a_field_or_a_variable_calls_nothing(tmp_path, renderer):
    """sapcc's pgbackup: `{{ fail "… are now always autodiscovered …" }}` made every chart that
    includes it render twice and never cache."""
    words = (
        '{{- if .Values.swift }}{{ fail "credentials are now always found" }}{{ end }}\n'
        "v: {{ .Values.date }}{{ $now := 1 }}{{ `shuffle` }}\n"
    )
    chart = write_chart(tmp_path, "web", {"cm.yaml": "kind: X\n" + words})
    cache = caching(renderer, tmp_path / "cache")
    cache.render_many([RenderRequest(str(chart), values={"date": "d"})] * 2)
    assert (cache.stats.uncacheable, cache.stats.misses, cache.stats.merged) == (0, 1, 1)
    (chart / "templates" / "cm.yaml").write_text('kind: X\nv: {{ printf "%s" (now) }}\n')
    cache.render_many([RenderRequest(str(chart))])
    assert cache.stats.uncacheable == 1


def test_a_symlinked_subchart_is_part_of_its_parents_key(tmp_path, renderer):
    lib = write_chart(
        tmp_path / "lib", "common", {"_labels.tpl": '{{- define "common.tier" -}}web{{- end -}}\n'}
    )
    (lib / "Chart.yaml").write_text("apiVersion: v2\nname: common\nversion: 0.1.0\ntype: library\n")
    app = write_chart(
        tmp_path / "apps", "app", {"cm.yaml": 'kind: X\ntier: {{ include "common.tier" . }}\n'}
    )
    (app / "Chart.yaml").write_text(
        "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n- name: common\n  version: 0.1.0\n  repository: file://../../lib/common\n"
    )
    (app / "charts").mkdir()
    (app / "charts" / "common").symlink_to("../../../lib/common", target_is_directory=True)
    cache = caching(renderer, tmp_path / "cache")
    (before,) = cache.render_many([RenderRequest(str(app))])
    (lib / "templates" / "_labels.tpl").write_text(
        '{{- define "common.tier" -}}backend{{- end -}}\n'
    )
    (after,) = cache.render_many([RenderRequest(str(app))])
    assert (cache.stats.hits, cache.stats.misses) == (0, 2)
    assert "tier: web" in before.manifests["app/templates/cm.yaml"]
    assert "tier: backend" in after.manifests["app/templates/cm.yaml"]


def test_charts_that_cannot_be_hashed_are_passed_through(tmp_path):
    chart = write_chart(tmp_path, "loop", {"cm.yaml": CONFIGMAP})
    (chart / "templates" / "again").symlink_to("..", target_is_directory=True)
    assert chart_digest(str(chart)) is None
    dangling = write_chart(tmp_path, "dangling", {"cm.yaml": CONFIGMAP})
    (dangling / "templates" / "gone.yaml").symlink_to("nowhere.yaml")
    assert chart_digest(str(dangling)) is None
    plain = write_chart(tmp_path, "plain", {"cm.yaml": CONFIGMAP})
    digest, volatile = chart_digest(str(plain))
    (plain / "templates" / "cm.yaml").write_text(CONFIGMAP + " ")
    assert chart_digest(str(plain))[0] != digest and volatile is False


def test_template_errors_are_cached_and_timeouts_are_not(tmp_path, renderer):
    broken = write_chart(tmp_path, "broken", {"boom.yaml": '{{ fail "replicas must be odd" }}\n'})
    (failed,) = caching(renderer, tmp_path / "cache").render_many([RenderRequest(str(broken))])
    assert "replicas must be odd" in failed.error and is_deterministic_error(failed.error)
    later = caching(renderer, tmp_path / "cache")
    (again,) = later.render_many([RenderRequest(str(broken))])
    assert later.stats.hits == 1 and again.error == failed.error

    slow = write_chart(
        # 10^8 steps over two small lists: slow, never large, so the time bound is the one cut
        tmp_path,
        "slow",
        {
            "x.yaml": "{{- range until 10000 }}{{ range until 10000 }}{{ end }}{{ end }}\nkind: Slow\n"
        },
    )
    with SdkRenderer(workers=1, timeout_seconds=0.5) as impatient:
        cache = caching(impatient, tmp_path / "cache")
        (timed_out,) = cache.render_many([RenderRequest(str(slow))])
        assert timed_out.error == timeout_error(0.5)
        cache.render_many([RenderRequest(str(slow))])
        assert (cache.stats.hits, cache.stats.misses) == (0, 2)
    for transient in (
        timeout_error(60),
        oversize_error(1024),
        values_error(ValueError("NaN")),
        "render worker exited unexpectedly (exit code -9)",
    ):
        assert not is_deterministic_error(transient)


def blob(size: int) -> CacheEntry:
    return CacheEntry({"t.yaml": base64.b64encode(os.urandom(size)).decode()})


def test_disk_eviction_keeps_the_size_bound_and_the_recently_used(tmp_path):
    disk = DiskRenderCache(tmp_path / "cache", max_bytes=8_000)
    keys = [f"{n:02x}" + "0" * 62 for n in range(4)]
    now = time.time()
    for age, key in zip((40, 30, 20), keys):
        disk.put(key, blob(2000))
        path = tmp_path / "cache" / key[:2] / key
        os.utime(path, (now - age, now - age))
    assert disk.get(keys[0]) is not None  # used just now: the youngest
    disk.put(keys[3], blob(3000))
    assert disk.total_bytes() <= 8_000 and disk.evictions == 1
    assert disk.get(keys[1]) is None  # the least recently used went first
    assert all(disk.get(key) is not None for key in (keys[0], keys[2], keys[3]))
    disk.put("ff" + "0" * 62, blob(20_000))  # larger than the whole cache: not kept
    assert disk.get("ff" + "0" * 62) is None and disk.total_bytes() <= 8_000


def test_rendering_past_the_bound_evicts(tmp_path, renderer):
    chart = write_chart(tmp_path, "web", {"cm.yaml": CONFIGMAP})
    cache = CachingRenderer(renderer, open_render_cache(tmp_path / "cache", max_bytes=1500))
    cache.render_many(
        [
            RenderRequest(
                str(chart), values={"greeting": base64.b64encode(os.urandom(300)).decode()}
            )
            for _ in range(8)
        ]
    )
    assert cache.stats.misses == 8
    assert cache.store.disk.total_bytes() <= 1500 and cache.store.disk.evictions > 0


def test_a_corrupt_entry_is_a_miss_and_is_removed(tmp_path):
    disk = DiskRenderCache(tmp_path / "cache")
    key = "ab" * 32
    disk.put(key, CacheEntry({"a": "b"}))
    path = tmp_path / "cache" / "ab" / key
    path.write_bytes(b"not zlib")
    assert disk.get(key) is None and not path.exists()


def test_memory_layer_keeps_the_most_recently_used_within_its_bytes():
    memory = MemoryRenderCache(max_bytes=100)
    memory.put("a", CacheEntry({"x": "1" * 40}))
    memory.put("b", CacheEntry({"x": "2" * 40}))
    assert memory.get("a") is not None
    memory.put("c", CacheEntry({"x": "3" * 40}))
    assert memory.get("b") is None and memory.get("a") is not None and memory.get("c") is not None


def test_the_default_folder_follows_xdg():
    assert default_render_cache_dir({"XDG_CACHE_HOME": "/c", "HOME": "/h"}) == Path(
        "/c/aftershock/render"
    )
    assert default_render_cache_dir({"HOME": "/h"}) == Path("/h/.cache/aftershock/render")


def test_the_error_of_a_chart_that_can_render_a_secret_stays_in_memory(tmp_path, renderer):
    secret = "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {u: {{ .Values.u }}}\n"
    broken = {"boom.yaml": '{{ fail (printf "bad upstream %s" .Values.u) }}\n', "s.yaml": secret}
    chart = write_chart(tmp_path, "broken", broken, values="u: Xk29fQ7mLwTq\n")
    cache = caching(renderer, tmp_path / "cache")
    (failed,) = cache.render_many([RenderRequest(str(chart))])
    assert "Xk29fQ7mLwTq" in failed.error and cache.stats.misses == 1
    assert not [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]
    (again,) = cache.render_many([RenderRequest(str(chart))])
    assert cache.stats.hits == 1 and again.error == failed.error  # from memory


def test_a_store_that_keeps_nothing_on_disk_is_spared_the_secret_scan(tmp_path, renderer):
    """Whether a failed render's chart can render a Secret (a read of every template) matters only to
    a store that writes to disk; a memory-only one (`--render-cache off`) keeps every entry as is."""
    secret = "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {u: {{ .Values.u }}}\n"
    broken = {"boom.yaml": '{{ fail (printf "bad upstream %s" .Values.u) }}\n', "s.yaml": secret}
    chart = write_chart(tmp_path, "broken", broken, values="u: Xk29fQ7mLwTq\n")
    request = RenderRequest(str(chart))
    memory, layered = MemoryRenderCache(), open_render_cache(tmp_path / "cache")
    for store in (memory, layered):
        (failed,) = CachingRenderer(renderer, store).render_many([request])
        assert failed.error is not None
    (memory_key,) = CachingRenderer(renderer, memory).keys_for([request])
    assert memory_key is not None
    held, kept = memory.get(memory_key), layered.memory.get(memory_key)
    assert held is not None and kept is not None
    assert (held.private, kept.private) == (False, True)
