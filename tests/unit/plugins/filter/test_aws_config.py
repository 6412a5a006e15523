from __future__ import absolute_import, division, print_function

__metaclass__ = type

import botocore.config
import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.teardown.gates.plugins.filter.aws_config import aws_config
from ansible_collections.teardown.gates.plugins.module_utils.core import bounds


def test_it_is_the_bound_the_modules_use_and_names_the_caller():
    cfg = aws_config("cfn_refusals")
    assert cfg["user_agent_extra"] == "teardown.gates/%s (cfn_refusals)" % bounds.VERSION
    ours = bounds.aws_config("cfn_refusals")
    # amazon.aws builds botocore's Config from the dict: the same settings as the modules' own clients
    built = botocore.config.Config(**cfg)
    for key in ("connect_timeout", "read_timeout", "retries", "user_agent_extra"):
        assert getattr(built, key) == getattr(ours, key)


@pytest.mark.parametrize("bad", ["", "  ", None, 3])
def test_a_caller_is_required(bad):
    with pytest.raises(AnsibleFilterError, match="caller"):
        aws_config(bad)
