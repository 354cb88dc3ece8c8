"""Named rulesets and options (rules.md §12).

>>> get_ruleset("cgr2022").jiefeng
'any'
>>> get_ruleset("jiangsu2017", a_fail_limit=3).a_fail_limit
3
"""

from __future__ import annotations

from dataclasses import dataclass, replace


class UnknownRulesetError(ValueError):
    """A ruleset name that is not one of RULESETS."""


@dataclass(frozen=True)
class Ruleset:
    """A ruleset: the named rule points of §12 plus the options valid with any ruleset.

    - ``return_limit``: ``"any_receiver"`` (cgr2022: a return's natural rank must be 2..10,
      else the lowest card) or ``"partner_only"`` (jiangsu2017: the ≤10 limit applies only
      when returning to one's own partner; any card to an opponent).
    - ``double_tribute_leader``: ``"payer_to_first"`` (cgr2022) or ``"first_next"``
      (jiangsu2017: 上游's 下家).
    - ``jiefeng``: ``"any"`` (after any finisher's unbeaten last play) or ``"first_only"``
      (only after 上游's; otherwise the lead passes to the owner's next seat still in play).
    - ``tribute`` (an experiment option, not a rule point; ``guandan experiment``): ``"on"``
      (rules.md §10, the default), ``"off"`` (no tribute and no return; the previous 上游
      leads, as after resistance) or ``"paid"`` (no resistance: the payers pay even when
      they hold both ``HR``).
    """

    name: str
    return_limit: str = "any_receiver"
    double_tribute_leader: str = "payer_to_first"
    jiefeng: str = "any"
    a_fail_limit: int | None = None
    max_deals: int | None = None
    tribute: str = "on"

    def with_options(
        self, a_fail_limit: int | None = None, max_deals: int | None = None, tribute: str | None = None
    ) -> Ruleset:
        for name, value in (("a_fail_limit", a_fail_limit), ("max_deals", max_deals)):
            if value is not None and value < 1:
                raise ValueError(f"{name} must be a positive number of deals, got {value}")
        tribute = self.tribute if tribute is None else tribute
        if tribute not in TRIBUTE_MODES:
            raise ValueError(f"unknown tribute mode {tribute!r}: valid modes are {', '.join(TRIBUTE_MODES)}")
        return replace(self, a_fail_limit=a_fail_limit, max_deals=max_deals, tribute=tribute)

    def to_dict(self) -> dict:
        out = {"name": self.name, "a_fail_limit": self.a_fail_limit, "max_deals": self.max_deals}
        if self.tribute != "on":
            out["tribute"] = self.tribute
        return out


#: values of the ``tribute`` option
TRIBUTE_MODES = ("on", "off", "paid")


RULESETS: dict[str, Ruleset] = {
    "cgr2022": Ruleset("cgr2022"),
    "jiangsu2017": Ruleset(
        "jiangsu2017", return_limit="partner_only", double_tribute_leader="first_next", jiefeng="first_only"
    ),
}
DEFAULT_RULESET = "cgr2022"


def get_ruleset(
    name: str | Ruleset = DEFAULT_RULESET,
    a_fail_limit: int | None = None,
    max_deals: int | None = None,
    tribute: str | None = None,
) -> Ruleset:
    """A named ruleset with options; an unknown name lists the valid ones.

    >>> get_ruleset("cgr2022", tribute="off").tribute
    'off'
    """
    if isinstance(name, Ruleset):
        base = name
        a_fail_limit = a_fail_limit if a_fail_limit is not None else name.a_fail_limit
        max_deals = max_deals if max_deals is not None else name.max_deals
    else:
        try:
            base = RULESETS[name]
        except KeyError:
            raise UnknownRulesetError(
                f"unknown ruleset {name!r}: valid rulesets are {', '.join(sorted(RULESETS))}"
            ) from None
    return base.with_options(a_fail_limit=a_fail_limit, max_deals=max_deals, tribute=tribute)
