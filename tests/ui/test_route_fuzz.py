"""Hostile query parameters and ids on every route of ``troth ui``: never a 500; a bad value is a
400 with a sentence, an unknown id a 404."""

from __future__ import annotations

import itertools

from tests.ui.conftest import get

ROUTES = ["/", "/evals/base", "/evals/nope", "/runs/nope", "/raw/output/nope", "/raw/nope/nope", "/compare", "/live"]
VALUES = [
    "",
    "-1",
    "abc",
    "nan",
    "1e309",
    "99999999999999999999",
    "<script>x</script>",
    "\u202e" + "é" * 300,
    "99999999999d",
    "base",
]
PARAMS = ["page", "sort", "q", "since", "threshold", "a", "b"]


def test_no_parameter_gives_a_500(ui: str) -> None:
    seen: dict[int, int] = {}
    every = [(route, dict.fromkeys(PARAMS, value)) for route, value in itertools.product(ROUTES, VALUES)]
    numeric = itertools.product(("/live", "/evals/base"), ("page", "since", "threshold"), VALUES)
    one = [(route, {param: value}) for route, param, value in numeric]
    for route, params in every + one:
        response = get(ui, route, **params)
        seen[response.status_code] = seen.get(response.status_code, 0) + 1
        assert response.status_code != 500, (route, params, response.text[:300])
        if response.status_code == 400:
            assert "must be" in response.text or "not" in response.text, (route, params)
    assert set(seen) <= {200, 400, 404}, seen
    assert get(ui, "/runs/nope").status_code == 404 and get(ui, "/evals/nope").status_code == 404


def test_hostile_ids_in_paths(ui: str) -> None:
    for raw in ["..%2F..%2Fetc%2Fpasswd", "%00", "a" * 5000, "%E2%80%AE", "x%22%3E%3Cscript%3E"]:
        for route in ("/evals/", "/runs/", "/raw/output/"):
            response = get(ui, route + raw)
            assert response.status_code == 404, (route, raw, response.status_code)
