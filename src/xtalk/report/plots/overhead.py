"""The overhead plot, next to the headline where the backend is a dimension: per metric,
each guest configuration's change against the same configuration on the bare machine
(native), with its 95% interval and the noise floor of the native runs, coloured by
verdict (overhead, no-overhead, inconclusive)."""
from __future__ import annotations

from . import plot
from .common import Context, Plot
from .headline import change_plot


@plot(1)
def overhead(ctx: Context) -> list[Plot]:
    return change_plot(ctx, ctx.res.get("overhead") or [], "overhead",
                       "Overhead of each guest against the bare machine (native)")
