"""tests/build_cache.py: a build is made once per content of its inputs, and made again when they change."""
import os
import time

import pytest

from tests import build_cache


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setattr(build_cache, "CACHE_ROOT", tmp_path / "cache")
    return tmp_path / "cache"


def test_a_build_is_reused_while_its_inputs_are_unchanged_and_made_anew_when_they_change(cache, tmp_path):
    lock_file = tmp_path / "package-lock.json"
    lock_file.write_text('{"v": 1}')
    builds = []

    def build(folder):
        builds.append(folder)
        (folder / "made").write_text(lock_file.read_text())

    first = build_cache.built("tool", [lock_file, "node v20"], build)
    assert build_cache.built("tool", [lock_file, "node v20"], build) == first and len(builds) == 1
    lock_file.write_text('{"v": 2}')
    second = build_cache.built("tool", [lock_file, "node v20"], build)
    assert second != first and (second / "made").read_text() == '{"v": 2}'
    assert build_cache.built("tool", [lock_file, "node v22"], build) not in (first, second)
    assert len(builds) == 3 and first.parent == second.parent == cache


def test_an_unfinished_build_is_started_again_from_an_empty_folder(cache):
    def failing(folder):
        (folder / "half").write_text("")
        raise RuntimeError("npm ci failed")

    with pytest.raises(RuntimeError):
        build_cache.built("tool", ["inputs"], failing)
    folder = build_cache.built("tool", ["inputs"], lambda folder: (folder / "whole").write_text(""))
    assert sorted(path.name for path in folder.iterdir()) == [build_cache.BUILT, "whole"]


def test_a_newer_build_removes_the_ones_unused_for_two_weeks(cache):
    old = build_cache.built("tool", ["old"], lambda folder: None)
    recent = build_cache.built("tool", ["recent"], lambda folder: None)
    other_tool = build_cache.built("other", ["old"], lambda folder: None)
    long_ago = time.time() - build_cache.PRUNE_AFTER - 60
    for folder in (old, other_tool):
        os.utime(folder / build_cache.BUILT, (long_ago, long_ago))
    newest = build_cache.built("tool", ["newest"], lambda folder: None)
    assert not old.exists() and recent.exists() and newest.exists() and other_tool.exists()
