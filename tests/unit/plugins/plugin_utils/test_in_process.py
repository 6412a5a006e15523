# -*- coding: utf-8 -*-
# process_state: what a module run in Ansible's worker process may change in that process (environment, working
# directory, module warnings, kubernetes' import-time KUBECONFIG default) is applied for the run and put back.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible.module_utils import basic
from ansible.module_utils.common import warnings as module_warnings

from ansible_collections.teardown.gates.plugins.plugin_utils import in_process as P

kube_config = pytest.importorskip("kubernetes.config.kube_config")


@pytest.fixture
def clean(monkeypatch, tmp_path):
    """A known starting state, whatever ran before: one variable set, one unset, a known kube default."""
    monkeypatch.setenv("TG_KEPT", "before")
    monkeypatch.delenv("TG_ADDED", raising=False)
    monkeypatch.setenv("KUBECONFIG", "/process/kubeconfig")
    monkeypatch.setattr(kube_config, "KUBE_CONFIG_DEFAULT_LOCATION", "/imported/default")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_environment_applies_inside_and_is_restored_after(clean):
    before = dict(os.environ)
    with P.process_state({"TG_KEPT": "inside", "TG_ADDED": 5, "KUBECONFIG": "/play/kubeconfig"}):
        assert os.environ["TG_KEPT"] == "inside"
        assert os.environ["TG_ADDED"] == "5"  # values become strings, as in a module process
        assert os.environ["KUBECONFIG"] == "/play/kubeconfig"
        os.environ["TG_SET_BY_MODULE"] = "x"
        del os.environ["TG_KEPT"]
    assert dict(os.environ) == before


def test_the_kubernetes_default_follows_the_play_kubeconfig_and_is_restored(clean):
    with P.process_state({"KUBECONFIG": "/play/kubeconfig"}):
        assert kube_config.KUBE_CONFIG_DEFAULT_LOCATION == "/play/kubeconfig"
    assert kube_config.KUBE_CONFIG_DEFAULT_LOCATION == "/imported/default"


def test_without_a_play_kubeconfig_the_process_one_is_the_default(clean):
    with P.process_state({}):
        assert kube_config.KUBE_CONFIG_DEFAULT_LOCATION == "/process/kubeconfig"
    assert kube_config.KUBE_CONFIG_DEFAULT_LOCATION == "/imported/default"


def test_without_any_kubeconfig_the_default_is_the_home_one(clean, monkeypatch):
    monkeypatch.delenv("KUBECONFIG")
    with P.process_state({}):
        assert kube_config.KUBE_CONFIG_DEFAULT_LOCATION == "~/.kube/config"
    assert kube_config.KUBE_CONFIG_DEFAULT_LOCATION == "/imported/default"


def test_everything_is_restored_when_the_body_raises(clean):
    elsewhere = clean / "elsewhere"
    elsewhere.mkdir()
    before = dict(os.environ)
    with pytest.raises(SystemExit):
        with P.process_state({"TG_ADDED": "1", "KUBECONFIG": "/play/kubeconfig"}):
            os.chdir(str(elsewhere))
            basic._ANSIBLE_ARGS = b'{"ANSIBLE_MODULE_ARGS": {}}'  # pylint: disable=protected-access
            raise SystemExit(1)  # as fail_json ends a module
    assert dict(os.environ) == before
    assert os.getcwd() == str(clean)
    assert kube_config.KUBE_CONFIG_DEFAULT_LOCATION == "/imported/default"
    assert basic._ANSIBLE_ARGS is None  # pylint: disable=protected-access


def test_an_ordinary_exception_restores_too(clean):
    before = dict(os.environ)
    with pytest.raises(ValueError):
        with P.process_state({"TG_ADDED": "1"}):
            raise ValueError("module bug")
    assert dict(os.environ) == before and "TG_ADDED" not in os.environ


def test_a_working_directory_that_vanished_does_not_break_the_restore(clean):
    gone = clean / "gone"
    gone.mkdir()
    os.chdir(str(gone))
    with P.process_state({}):
        os.chdir(str(clean))
        gone.rmdir()
    assert os.getcwd() == str(clean)  # could not go back; no error either


def _record_warning(text):
    """What module-side code leaves behind: module_warnings.warn() itself displays at once in a controller
    process (ansible.module_utils._internal.is_controller), so the record is made directly."""
    module_warnings._global_warnings[text] = None  # pylint: disable=protected-access


def _record_deprecation(text):
    module_warnings._global_deprecations[text] = None  # pylint: disable=protected-access


def test_module_warnings_are_cleared_before_and_after(clean):
    _record_warning("from an earlier task")
    _record_deprecation("an earlier deprecation")
    with P.process_state({}):
        assert not module_warnings._global_warnings  # pylint: disable=protected-access
        assert not module_warnings._global_deprecations  # pylint: disable=protected-access
        _record_warning("from this task")
        _record_deprecation("from this task")
    assert not module_warnings._global_warnings  # pylint: disable=protected-access
    assert not module_warnings._global_deprecations  # pylint: disable=protected-access


def test_module_warnings_are_cleared_when_the_body_raises(clean):
    with pytest.raises(SystemExit):
        with P.process_state({}):
            _record_warning("from a failing task")
            raise SystemExit(1)
    assert not module_warnings._global_warnings  # pylint: disable=protected-access


def test_same_interpreter_follows_links_within_one_folder(tmp_path):
    # a venv's python and python3 are links to one base interpreter: the same; another venv's is not,
    # although its links end at the same file (it has other packages)
    base = tmp_path / "base" / "python3.11"
    base.parent.mkdir()
    base.write_text("")
    venv, other = tmp_path / "venv" / "bin", tmp_path / "other" / "bin"
    for folder in (venv, other):
        folder.mkdir(parents=True)
        (folder / "python").symlink_to(base)
        (folder / "python3").symlink_to(base)
    assert P.same_interpreter(str(venv / "python"), str(venv / "python3"))
    assert P.same_interpreter(str(venv / "python3"), str(venv / "python3"))
    assert not P.same_interpreter(str(other / "python"), str(venv / "python3"))
    assert not P.same_interpreter(str(base), str(venv / "python3"))


def test_core_fits_this_core_and_not_one_whose_result_parser_differs():
    from ansible.plugins.action import ActionBase

    class ThisCore(object):
        _parse_returned_data = ActionBase._parse_returned_data

    class OlderCore(object):
        def _parse_returned_data(self, res):  # before 2.19 the parser took no serialization profile
            return res

    assert P.core_fits(ThisCore())
    assert not P.core_fits(OlderCore())


def test_preload_freezes_what_it_imported_so_workers_do_not_copy_it(monkeypatch):
    import gc

    monkeypatch.setattr(P, "IMPORTED", {})
    gc.unfreeze()
    try:
        assert P.preload("deletion_info") is not None
        assert gc.get_freeze_count() > 0  # the module and everything alive then is out of the collector's walk
        frozen = gc.get_freeze_count()
        P.preload("deletion_info")  # already imported: nothing to do, no second freeze
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
