"""Machine instructions numba does not offer: bit scans, bit counts, a memory prefetch and a byte read by address."""

from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic


def _bit_scan(instruction):
    """An intrinsic's typing function for LLVM's `cttz` or `ctlz` on a uint64 (64 for zero)."""

    def typing(typingctx, x):
        if x != types.uint64:
            return None

        def codegen(context, builder, signature, args):
            return getattr(builder, instruction)(args[0], context.get_constant(types.boolean, False))

        return types.uint64(types.uint64), codegen

    return typing


trailing_zeros = intrinsic(_bit_scan("cttz"))
trailing_zeros.__doc__ = "The number of zero bits below the lowest set bit of a uint64 (64 for zero)."
leading_zeros = intrinsic(_bit_scan("ctlz"))
leading_zeros.__doc__ = "The number of zero bits above the highest set bit of a uint64 (64 for zero)."


@intrinsic
def prefetch(typingctx, array, index):
    """Ask the CPU to start loading `array[index]` into its cache (for a 2-D array: the row's first item)."""
    if not isinstance(array, types.Array) or array.ndim > 2 or not isinstance(index, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        data = context.make_array(array_type)(context, builder, args[0])
        indices = [args[1]] + [context.get_constant(types.intp, 0)] * (array_type.ndim - 1)
        pointer = cgutils.get_item_pointer(context, builder, array_type, data, indices, wraparound=False)
        byte_pointer = builder.bitcast(pointer, ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [byte_pointer.type, i32, i32, i32]), "llvm.prefetch.p0i8"
        )
        builder.call(function, [byte_pointer, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return types.none(array, index), codegen


@intrinsic
def popcount(typingctx, x):
    """The number of set bits of a uint64."""
    if x != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


_MADV_HUGEPAGE = 14
_PAGE = 4096


@intrinsic
def advise_huge_pages(typingctx, array):
    """Ask Linux to back a large C-contiguous array with huge pages (madvise MADV_HUGEPAGE); returns madvise's result.

    Randomly probed tables then miss the TLB far less often. The kernel may
    decline (transparent huge pages off), which costs nothing.
    """
    if not isinstance(array, types.Array):
        return None

    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0])
        i64 = ir.IntType(64)
        start = builder.ptrtoint(data.data, i64)
        end = builder.add(start, builder.mul(data.nitems, data.itemsize))
        mask = ir.Constant(i64, ~(_PAGE - 1))
        first = builder.and_(builder.add(start, ir.Constant(i64, _PAGE - 1)), mask)
        last = builder.and_(end, mask)
        length = builder.select(builder.icmp_unsigned(">", last, first), builder.sub(last, first), ir.Constant(i64, 0))
        byte_pointer = ir.IntType(8).as_pointer()
        madvise = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.IntType(32), [byte_pointer, i64, ir.IntType(32)]), "madvise"
        )
        return builder.call(madvise, [builder.inttoptr(first, byte_pointer), length, ir.Constant(ir.IntType(32), _MADV_HUGEPAGE)])

    return types.int32(array), codegen


@intrinsic
def load_byte(typingctx, address):
    """The byte at memory `address` (an int64 from an array's `ctypes.data` plus an offset into it)."""
    if address != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.load(builder.inttoptr(args[0], ir.IntType(8).as_pointer()))

    return types.uint8(types.int64), codegen
