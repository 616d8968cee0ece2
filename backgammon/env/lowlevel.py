"""Two numba intrinsics the batched kernel (:mod:`backgammon.env.lockstep`) steps with:
array views that hold no reference, and a board copied in two moves instead of 26.

Both are about the cost of what numba writes around the rules, measured on the batched
step: an atomic reference count up and down for every array a helper is handed (a tenth of
the step), and a byte loop LLVM cannot widen because it cannot rule out that the two
arrays overlap (26 stores to a cold row, which fill the store buffer: a tenth again).
"""

from __future__ import annotations

from typing import Any

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["borrow", "copy_board"]


def _borrowed(typingctx: Any, arrays: Any) -> Any:
    """The typing and code of :func:`borrow`: each array's view with no meminfo (numba
    counts no reference of an array without one)."""
    kinds = [arrays] if isinstance(arrays, types.Array) else list(getattr(arrays, "types", ()))
    if not kinds or not all(isinstance(kind, types.Array) for kind in kinds):
        return None
    null: Any = cgutils.get_null_value

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        value = args[0]
        for k, kind in enumerate(kinds):
            item = value if kind is arrays else builder.extract_value(value, k)
            view = context.make_array(kind)(context, builder, value=item)
            view.meminfo = null(view.meminfo.type)
            view.parent = null(view.parent.type)
            if kind is arrays:
                return view._getvalue()
            value = builder.insert_value(value, view._getvalue(), k)
        return value

    return arrays(arrays), codegen


borrow: Any = intrinsic(_borrowed)
"""An array (or a tuple of arrays) as views that hold no reference, in compiled code, so
that handing them to helpers costs no atomic count.  Only for arrays that the caller's own
arguments keep alive while the views are used (never a temporary)."""


def _copied(typingctx: Any, dst: Any, src: Any) -> Any:
    """The typing and code of :func:`copy_board`: one 26-byte ``memcpy``, which LLVM
    makes two vector moves."""
    kinds = (dst, src)
    if not all(
        isinstance(k, types.Array) and k.dtype == types.int8 and k.ndim == 1 and k.layout == "C"
        for k in kinds
    ):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        to = context.make_array(dst)(context, builder, value=args[0])
        of = context.make_array(src)(context, builder, value=args[1])
        memcpy: Any = cgutils.raw_memcpy
        memcpy(builder, to.data, of.data, context.get_constant(types.intp, 26), 1)
        return context.get_dummy_value()

    return types.void(dst, src), codegen


copy_board: Any = intrinsic(_copied)
"""``dst[:26] = src[:26]`` for two boards (contiguous ``int8`` rows that do not overlap),
in compiled code."""
