"""Numba intrinsics the batched engines' kernels share (``brag_env/brag/batched_kernel.py``,
``brag_env/put/batched_kernel.py``).

``borrowed``: an array, or a tuple of arrays, as views that carry no reference count. Numba
counts a reference (an atomic add, then a subtract) each time an owned array is read out of a
tuple or a struct, bound to a helper's argument or sliced, and its pruning leaves many of those
counts in loops with branches; on a borrowed view the count finds a null pointer and does
nothing. The caller keeps the arrays alive for as long as the views are used (a kernel's call:
the arrays are its arguments; the Brag engine's structs: the engine holds them).
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


def _view(context, builder, array: types.Array, value):
    """``value`` (of Numba type ``array``) with a null meminfo and no parent object."""
    source = context.make_array(array)(context, builder, value)
    view = context.make_array(array)(context, builder)
    for name in ("data", "shape", "strides", "itemsize", "nitems"):
        setattr(view, name, getattr(source, name))
    view.meminfo = context.get_constant_null(types.MemInfoPointer(types.voidptr))
    view.parent = context.get_constant_null(types.pyobject)
    return view._getvalue()


@intrinsic
def borrowed(typingctx, value):
    """``value``'s views without their reference counts (an array, or a tuple, named or not,
    of arrays; the data stay owned by the caller)."""
    if isinstance(value, types.Array):

        def codegen(context, builder, signature, args):
            return _view(context, builder, value, args[0])

        return value(value), codegen
    if isinstance(value, types.BaseTuple) and all(isinstance(t, types.Array) for t in value):

        def codegen_tuple(context, builder, signature, args):
            items = cgutils.unpack_tuple(builder, args[0], len(value))
            views = [_view(context, builder, t, v) for t, v in zip(value, items, strict=True)]
            return context.make_tuple(builder, value, views)

        return value(value), codegen_tuple
    return None
