"""Orders of growth a scaling rule may declare, `n^a (log n)^b`, and what they predict (pure).

Accepted spellings (case and spaces free, an `O(...)` around them optional): `O(1)` (constant),
`log n`, `n`, `n log n`, `n^2`, `n^2 log n`, `n^3`, any `n^x` (`n^1.5`, `n**2`, `n²`, `n³`),
`log(n)`, `nlogn`, `n*log(n)`, `log^2 n`, and a bare number `x`, an exponent: `n^x` (so `1` is
`n`, and a constant is written `O(1)` or `0`). The logarithm's base does not matter (it changes a
constant factor, never an exponent).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Order:
    """`n^power * (log n)^log_power`; `label` as the budget file or `STANDARD` names it."""

    power: float
    log_power: int
    label: str

    def log_value(self, n: float) -> float:
        """ln of the order's value at n (n > 1)."""
        return self.power * math.log(n) + (self.log_power * math.log(math.log(n)) if self.log_power else 0.0)


STANDARD = (
    Order(0.0, 0, "1"),
    Order(0.0, 1, "log n"),
    Order(1.0, 0, "n"),
    Order(1.0, 1, "n log n"),
    Order(2.0, 0, "n^2"),
    Order(2.0, 1, "n^2 log n"),
    Order(3.0, 0, "n^3"),
)

_SUPERSCRIPTS = {"²": "^2", "³": "^3"}
_LOG = r"log(?:\^(?P<lp>\d))?(?:\(n\)|n)"
_POWER = r"n(?:(?:\^|\*\*)(?P<p>\d+(?:\.\d+)?))?"
_FORM = re.compile(rf"(?:(?P<n>{_POWER})\*?)?(?P<log>{_LOG})?")


def _label(power: float, log_power: int) -> str:
    parts = []
    if power:
        parts.append("n" if power == 1 else f"n^{power:g}")
    if log_power:
        parts.append("log n" if log_power == 1 else f"log^{log_power} n")
    return " ".join(parts) or "1"


def parse_order(value: object) -> Order | None:
    """The order `value` spells (module doc), or None when it spells none. A number is an
    exponent; booleans are not numbers here."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        if not math.isfinite(value) or value < 0 or value > 100:
            return None
        return Order(float(value), 0, _label(float(value), 0))
    if not isinstance(value, str):
        return None
    text = value.strip().lower()
    for sup, plain in _SUPERSCRIPTS.items():
        text = text.replace(sup, plain)
    text = re.sub(r"\s+", "", text)
    if text.startswith("o(") and text.endswith(")"):
        text = text[2:-1]
        if text == "1":
            return Order(0.0, 0, "1")
    try:
        return parse_order(float(text)) if text else None
    except ValueError:
        pass
    m = _FORM.fullmatch(text)
    if m is None or not (m.group("n") or m.group("log")):
        return None
    power = float(m.group("p")) if m.group("p") else (1.0 if m.group("n") else 0.0)
    log_power = (int(m.group("lp")) if m.group("lp") else 1) if m.group("log") else 0
    if power > 100 or log_power > 9:
        return None
    return Order(power, log_power, _label(power, log_power))
