# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.teardown.gates.plugins.module_utils.core import states
from ansible_collections.teardown.gates.plugins.module_utils.k8s import observe
from ansible_collections.teardown.gates.plugins.module_utils.owners import captf, convoy
from ansible_collections.teardown.gates.plugins.module_utils.owners.captf import ever_applied


def test_the_three_states_are_distinct():
    assert len({states.PRESENT, states.ABSENT, states.UNKNOWN}) == 3


def test_the_reads_and_the_owners_use_the_one_vocabulary():
    for where in (observe, convoy):
        assert (where.PRESENT, where.ABSENT, where.UNKNOWN) == (states.PRESENT, states.ABSENT, states.UNKNOWN)
    assert captf.UNKNOWN is states.UNKNOWN


def test_captf_reads_unknown_as_not_known_and_none_as_absent():
    # inputs None is an inputs Secret read as absent; UNKNOWN is a read that did not answer
    assert ever_applied({}, states.UNKNOWN, states.UNKNOWN)["value"] is None
    assert ever_applied({}, None, [])["value"] is False
