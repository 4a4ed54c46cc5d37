"""SharedDrawRenderer with real Helm: equal inputs get one draw, within a batch and across batches."""

from __future__ import annotations

from pathlib import Path

from aftershock.render.caching.shared import SharedDrawRenderer
from aftershock.render.helm.sdk import SdkRenderer
from aftershock.render.interface import RenderRequest

RANDOM = """\
apiVersion: v1
kind: Secret
metadata: {name: s}
stringData: {token: {{ randAlphaNum 16 | quote }}}
"""


def test_a_later_batch_gets_the_draw_of_an_earlier_one(tmp_path: Path):
    chart = tmp_path / "c"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "templates" / "secret.yaml").write_text(RANDOM)
    request = RenderRequest(chart_dir=str(chart), values={})
    other = RenderRequest(chart_dir=str(chart), values={"x": 1})
    with SdkRenderer(workers=1) as backend:
        shared = SharedDrawRenderer(backend)
        (first,) = shared.render_many([request])
        again, fresh = shared.render_many([request, other])
        unshared = backend.render_many([request])[0]
    assert again.manifests == first.manifests and again.request is request
    assert fresh.manifests != first.manifests  # other values: a draw of its own
    assert (
        unshared.manifests != first.manifests
    )  # the draw is random: sharing is what made them equal
    assert shared.merged == 1
