"""The cluster report's loss curve (render_report.loss_curve_svg): an inline SVG polyline over the steps, the
non-finite steps left out, the resume step of a resumed run marked; nothing for fewer than two finite points."""

import re
import xml.etree.ElementTree as ET

from tests.unit.roles.cluster_report.test_render_report import ROLES, load

render = load(ROLES.parent / "runtime" / "scc_training_runtime" / "render_report.py")
SVG = "{http://www.w3.org/2000/svg}"


def points(svg):
    line = ET.fromstring(svg).find(SVG + "polyline")
    return [tuple(float(v) for v in pair.split(",")) for pair in line.get("points").split()]


def test_one_point_per_finite_step_falling_loss_goes_down_the_page():
    svg = render.loss_curve_svg([8.0, None, 6.0, 4.0], width=480, height=160)
    drawn = points(svg)
    assert len(drawn) == 3  # the non-finite step 2 is left out
    xs, ys = [x for x, _y in drawn], [y for _x, y in drawn]
    assert xs == sorted(xs) and xs[0] == 36 and xs[-1] == 480 - 36
    # SVG's y grows downwards: a falling loss climbs down the page, highest loss at the top margin.
    assert ys == sorted(ys) and (ys[0], ys[-1]) == (36.0, 160 - 36.0)
    labels = [t.text for t in ET.fromstring(svg).iter(SVG + "text")]
    assert labels == ["8.000", "4.000", "step 1", "step 4"]


def test_a_resumed_run_marks_its_resume_step():
    svg = render.loss_curve_svg([5.0, 4.0, 3.5, 3.0, 2.8], resumed_from=2)
    assert "resumed after step 2" in svg
    line = ET.fromstring(svg).find(SVG + "line")
    assert line.get("x1") == line.get("x2") == "%.1f" % (36 + (480 - 72) * 1 / 4)
    assert "resumed" not in render.loss_curve_svg([5.0, 4.0, 3.0])


def test_nothing_to_draw_below_two_finite_losses():
    assert render.loss_curve_svg([]) == render.loss_curve_svg([None, 3.0]) == ""
    # A flat loss still draws (no division by zero), a horizontal line.
    ys = {y for _x, y in points(render.loss_curve_svg([2.0, 2.0, 2.0]))}
    assert len(ys) == 1 and re.match(r"^\d", str(ys.pop()))
