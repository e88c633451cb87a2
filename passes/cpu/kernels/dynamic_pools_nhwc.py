"""The NHWC pool kernel over dynamic images. A window's taps are whole channel rows, contiguous
in memory: each output pixel folds its K x K taps as vectors of channels, no shuffles.

    for each output row (n, oh) of N*OH                    (a chunk of rows per thread)
      interior row (lo <= oh < hi) or border row           (clamped reads, selects)
        for ow in [0, clo) | [clo, chi) | [chi, OW)        (border columns likewise)
          for each vector of channels (C static: full vectors, then one narrower)
            y[n, oh, ow, c:] = fold over kh, kw of x[n, oh*s - pt + kh, ow*s - pl + kw, c:]
"""

from .dynamic_pools import DynamicPool, Kernel


def nhwc(pool: DynamicPool, lanes: int, threads: int, name: str) -> str:
    """The text of `@name(x) -> y`, the pool of an NHWC f32 `x` (H, W, N may be dynamic)."""
    return _Nhwc(pool, lanes, threads).function(name)


class _Nhwc(Kernel):
    def function(self, name: str) -> str:
        t, p = self.t, self.pool
        n, c = p.dims[0], p.dims[3]
        (_, kw), (_, sw), (_, pl, _, _) = p.kernel, p.strides, p.padding
        x_type, y_type = p.type_(p.dims), p.type_((n, None, None, c))
        y_rows, part = p.type_((None, None, c)), p.type_((None, None, c))
        self.x_type = x_type
        self.entry()
        t(f"%batch = tensor.dim %x0, {t.c(0)} : {x_type}")
        t(f"%clo = affine.min affine_map<(d0) -> ({-(-pl // sw)}, d0)>(%ow)")
        t(f"%chi0 = affine.min affine_map<(d0, d1) -> ((d0 + {pl - kw}) floordiv {sw} + 1, d1)>(%w, %ow)")
        t("%chi = arith.maxsi %chi0, %clo : index")
        t("%rows = arith.muli %batch, %oh : index")
        t(f"%init = tensor.empty(%rows, %ow) : {y_rows}")
        t("%bh = arith.muli %batch, %h : index")
        t("%bhw = arith.muli %bh, %w : index")
        t(f"%work = arith.muli %bhw, {t.c(c)} : index")

        def chunk(acc: str, first: str, count: str, type_: str) -> str:
            def row(i: str, a: str) -> str:
                at = self.emit(f"arith.addi {first}, {i}", "index")
                image = self.emit(f"arith.divui {at}, %oh", "index")
                oh = self.emit(f"arith.remui {at}, %oh", "index")
                above = self.emit(f"arith.cmpi uge, {oh}, %lo", "index")
                below = self.emit(f"arith.cmpi ult, {oh}, %hi", "index")
                inside = self.emit(f"arith.andi {above}, {below}", "i1")
                out = t.fresh("row")
                t(f"{out} = scf.if {inside} -> ({type_}) {{")
                t(f"  scf.yield {self.row(a, image, oh, i, False, type_)} : {type_}")
                t("} else {")
                t(f"  scf.yield {self.row(a, image, oh, i, True, type_)} : {type_}")
                t("}")
                return out

            return self.loop(t.c(0), count, 1, acc, type_, row)

        y = self.chunks("%rows", "%work", "%init", (y_rows, part), ["%ow", str(c)], chunk)
        shape = f"[{'%batch' if n is None else n}, %oh, %ow, {c}]"
        t(f"%y0 = tensor.expand_shape {y} [[0, 1], [2], [3]] output_shape {shape} : {y_rows} into {y_type}")
        t(f"return %y0 : {y_type}")
        return t.function(f"func.func private @{name}(%x0: {x_type}) -> {y_type} {{")

    def row(self, acc: str, image: str, oh: str, i: str, border: bool, type_: str) -> str:
        """Output row `oh` of `image`, written at row `i` of `acc`."""
        rows, row_count = self.taps(0, oh, border)
        c0 = self.t.c(0)
        for lo, hi, edge in ((c0, "%clo", True), ("%clo", "%chi", False), ("%chi", "%ow", True)):

            def pixel(ow: str, a: str, edge: bool = edge) -> str:
                cols, col_count = self.taps(1, ow, edge)
                return self.pixel(a, image, i, ow, rows, cols, row_count, col_count, type_)

            acc = self.loop(lo, hi, 1, acc, type_, pixel)
        return acc

    def pixel(self, acc, image, i, ow, rows, cols, row_count, col_count, type_) -> str:
        """Every channel of output `ow` of the row at `i`: the taps (`rows` x `cols`, each an
        index and whether it lies in the image) folded, a vector of channels at a time."""
        t, p, T = self.t, self.pool, self.lanes
        channels = p.dims[3]
        taps = []
        for r, r_valid in rows:
            for c, c_valid in cols:
                valid = r_valid or c_valid
                if r_valid and c_valid:
                    valid = self.emit(f"arith.andi {r_valid}, {c_valid}", "i1")
                taps.append((f"{image}, {r}, {c}", valid))
        count = None
        if p.kind == "sum" and col_count is not None:
            count = self.emit(f"arith.mulf {row_count or self.scalar(p.kernel[0])}, {col_count}", "f32")
        elif p.kind == "sum":
            count = row_count
        for first in range(0, channels, T):
            width = min(T, channels - first)
            value = None
            for at, valid in taps:
                value = self.fold(
                    value, self.read("%x0", f"{at}, {t.c(first)}", valid, width, True, self.x_type), width
                )
            if p.kind == "sum":
                value = self.divide(value, width, None, count, p.kernel[1] if col_count is None else 1)
            written = t.fresh("w")
            t(
                f"{written} = vector.transfer_write {value}, {acc}[{i}, {ow}, {t.c(first)}]"
                " {in_bounds = [true]}"
                f" : vector<{width}xf32>, {type_}"
            )
            acc = written
        return acc
