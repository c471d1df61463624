"""Named switches for rules and channels (`rules.disabled`)."""

import pytest

from openclaw_memory.config import config_from_dict
from openclaw_memory.errors import ConfigError
from openclaw_memory.core import ALL_ON
from openclaw_memory.core import switches_from

KNOWN = ["en.request.ask_end", "zh.request.ask_end", "zh.people.relation", "channel.entity"]


@pytest.mark.parametrize(
    ("off", "name", "on"),
    [
        ((), "zh.request.ask_end", True),
        (("zh.request.ask_end",), "zh.request.ask_end", False),
        (("zh.request",), "zh.request.ask_end", False),
        (("zh",), "zh.people.relation", False),
        (("zh.request",), "en.request.ask_end", True),
        (("channel.entity",), "channel.entityx", True),
    ],
)
def test_a_name_or_its_group_switches_a_rule_off(off, name, on):
    assert switches_from(off).on(name) is on


def test_unknown_names_are_refused_with_the_known_ones():
    with pytest.raises(ConfigError, match=r"rules\.disabled: zh\.requst .*zh\.request\.ask_end"):
        switches_from(["zh.requst"]).check(KNOWN)
    assert switches_from(["zh.request"]).check(KNOWN).off == {"zh.request"}
    assert ALL_ON.check(KNOWN) is ALL_ON


def test_config_reads_rules_disabled():
    assert config_from_dict({}).rules.disabled == ()
    assert config_from_dict({"rules": {"disabled": ["channel.entity"]}}).rules.disabled == (
        "channel.entity",
    )
