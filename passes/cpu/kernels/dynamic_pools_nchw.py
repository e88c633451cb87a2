"""The NCHW pool kernel over dynamic images: `versa-pool-kernels`' separable kernel with its
loops run to the call's sizes. Per tile of T outputs (a vector) of an output row, group g of
the taps kw = g*s + r reads T*s contiguous lanes of each of the K input rows and folds them
(the vertical taps); tap r is then the lanes r, r + s, ... of that fold (a shuffle):

    for each plane (n, c)                                  (a chunk of planes per thread)
      for oh in [0, lo) | [lo, hi) | [hi, OH)              (border rows: clamped reads, selects)
        tile at 0 (left padding: read from column 0, the lanes left of it the identity;
                   masked only where the image is narrower than its reads)
        tiles [c0, cend) by T                              (every read inside the image)
        tiles [cend, rend) by T, then one of T/2 if any is left   (masked reads and writes)

Where the static kernel places border tiles at constant columns, here the right border is
found per call: its reads are masked at W (`in_bounds = [false]`, padded with the identity)
and its writes at OW, so one tile serves any overhang. An average's divisor there is computed
per lane from W (`_counts`); inside it is the kernel's constant.
"""

from .dynamic_pools import DynamicPool, Kernel


def nchw(pool: DynamicPool, lanes: int, threads: int, name: str) -> str:
    """The text of `@name(x) -> y`, the pool of an NCHW f32 `x` (H, W, N may be dynamic)."""
    return _Nchw(pool, lanes, threads).function(name)


class _Nchw(Kernel):
    def function(self, name: str) -> str:
        t, p, T = self.t, self.pool, self.lanes
        n, c = p.dims[0], p.dims[1]
        planes = None if n is None else n * c
        x_type, y_type = p.type_(p.dims), p.type_((n, c, None, None))
        self.x_type = p.type_((planes, None, None))
        y_planes, part = p.type_((planes, None, None)), p.type_((None, None, None))
        s, k, pl = p.strides[1], p.kernel[1], p.padding[1]
        self.entry()
        t(f"%x = tensor.collapse_shape %x0 [[0, 1], [2], [3]] : {x_type} into {self.x_type}")
        t(f"%planes = tensor.dim %x, {t.c(0)} : {self.x_type}")
        t("%wide = arith.index_cast %w : index to i32")
        # inside tiles: every read within the image, every output within OW (module docstring)
        c0 = T if pl else 0
        reach = -(-k // s) * s
        t(
            "%cb = affine.min affine_map<(d0, d1) -> "
            f"((d0 + {pl - reach}) floordiv {s} + {2 - T}, d1 + {1 - T})>"
            "(%w, %ow)"
        )
        t(f"%cn = affine.max affine_map<(d0) -> (0, (d0 + {T - 1 - c0}) floordiv {T})>(%cb)")
        t(f"%cend = affine.apply affine_map<(d0) -> (d0 * {T} + {c0})>(%cn)")
        # right tiles: full ones to within half a tile of OW (`row`)
        t(
            "%rn = affine.max affine_map<(d0, d1) -> "
            f"(0, (d1 - d0 + {T - T // 2 - 1}) floordiv {T})>(%cend, %ow)"
        )
        t(f"%rend = affine.apply affine_map<(d0, d1) -> (d0 + d1 * {T})>(%cend, %rn)")
        left = (T - 1) * s - pl + k  # the left tile's reads
        t(f"%roomy0 = arith.cmpi sge, %w, {t.c(left)} : index")
        t(f"%roomy1 = arith.cmpi sge, %ow, {t.c(T)} : index")
        t("%roomy = arith.andi %roomy0, %roomy1 : i1")
        t(f"%init = tensor.empty({'%planes, ' if planes is None else ''}%oh, %ow) : {y_planes}")
        t("%pw = arith.muli %planes, %h : index")
        t("%work = arith.muli %pw, %w : index")

        def chunk(acc: str, first: str, count: str, type_: str) -> str:
            def plane(q: str, a: str) -> str:
                xq = self.emit(f"arith.addi {first}, {q}", "index")
                return self.plane(a, xq, q, type_)

            return self.loop(t.c(0), count, 1, acc, type_, plane)

        y = self.chunks("%planes", "%work", "%init", (y_planes, part), ["%oh", "%ow"], chunk)
        batch = str(n)
        if n is None:
            batch = "%batch"
            t(f"%batch = tensor.dim %x0, {t.c(0)} : {x_type}")
        shape = f"[{batch}, {c}, %oh, %ow]"
        t(f"%y0 = tensor.expand_shape {y} [[0, 1], [2], [3]] output_shape {shape} : {y_planes} into {y_type}")
        t(f"return %y0 : {y_type}")
        return t.function(f"func.func private @{name}(%x0: {x_type}) -> {y_type} {{")

    def plane(self, acc: str, xq: str, q: str, type_: str) -> str:
        """The output rows of plane `q` of `acc`, read from plane `xq` of x."""
        c0 = self.t.c(0)
        for lo, hi, border in ((c0, "%lo", True), ("%lo", "%hi", False), ("%hi", "%oh", True)):
            acc = self.loop(lo, hi, 1, acc, type_, lambda oh, a, b=border: self.row(a, xq, q, oh, b, type_))
        return acc

    def row(self, acc: str, xq: str, q: str, oh: str, border: bool, type_: str) -> str:
        """Output row `oh`: the left tile, the inside tiles, then the right ones: full tiles
        while more than half a tile is left, then a half tile (the static kernel's tail is as
        narrow as it is; a full masked tile there cost 1.15x at 112x112)."""
        t, T = self.t, self.lanes
        rows, count = self.taps(0, oh, border)

        def tile(kind: str, lanes: int = T):
            return lambda ow, a: self.tile(a, xq, q, oh, rows, count, kind, ow, type_, lanes)

        if self.pool.padding[1]:  # unmasked where the image is as wide as its reads (unswitched)
            fast = t.fresh("left")
            t(f"{fast} = scf.if %roomy -> ({type_}) {{")
            t(f"  scf.yield {tile('left_inside')(t.c(0), acc)} : {type_}")
            t("} else {")
            t(f"  scf.yield {tile('left')(t.c(0), acc)} : {type_}")
            t("}")
            acc = fast
        acc = self.loop(t.c(T if self.pool.padding[1] else 0), "%cend", T, acc, type_, tile("inside"))
        if T < 8:
            return self.loop("%cend", "%ow", T, acc, type_, tile("right"))
        acc = self.loop("%cend", "%rend", T, acc, type_, tile("right"))
        half, left = t.fresh("half"), t.fresh("more")
        t(f"{left} = arith.cmpi slt, %rend, %ow : index")
        t(f"{half} = scf.if {left} -> ({type_}) {{")
        t(f"  scf.yield {tile('right', T // 2)('%rend', acc)} : {type_}")
        t("} else {")
        t(f"  scf.yield {acc} : {type_}")
        t("}")
        return half

    def tile(self, acc, xq, q, oh, rows, count, kind, ow, type_, T: int) -> str:
        """T outputs from column `ow` of row `oh` (`kind`: "left", "inside" or "right")."""
        t, p = self.t, self.pool
        s, k, pl = p.strides[1], p.kernel[1], p.padding[1]
        if kind.startswith("left"):
            width = (T - 1) * s - pl + k
            starts = [t.c(0)]
            taps = [
                (0, [c if c >= 0 else width for c in (i * s - pl + kw for i in range(T))]) for kw in range(k)
            ]
        else:
            width = T * s
            starts = [self.affine(ow, s, g * s - pl) for g in range(-(-k // s))]
            taps = [(kw // s, [i * s + kw % s for i in range(T)]) for kw in range(k)]
        vec = f"vector<{width}xf32>"
        inside = kind.endswith("inside")
        folded = []
        for start in starts:
            acc_g = None
            for r, valid in rows:
                v = self.read("%x", f"{xq}, {r}, {start}", valid, width, inside, self.x_type)
                acc_g = self.fold(acc_g, v, width)
            folded.append(acc_g)
        pad = None
        if any(lane == width for _, lanes in taps for lane in lanes):
            pad = t.fresh("pad")
            t(f"{pad} = arith.constant dense<{p.identity}> : {vec}")
        result = None
        for g, lanes in taps:
            tap = folded[g]
            if lanes != list(range(width)):
                tap = self.emit(f"vector.shuffle {folded[g]}, {pad or folded[g]} {lanes}", f"{vec}, {vec}")
            result = self.fold(result, tap, T)
        if p.kind == "sum":
            result = self.divide(result, T, None if kind == "inside" else self._counts(ow, T), count, k)
        written = t.fresh("w")
        in_bounds = str(inside).lower()
        t(
            f"{written} = vector.transfer_write {result}, {acc}[{q}, {oh}, {ow}]"
            f" {{in_bounds = [{in_bounds}]}}"
            f" : vector<{T}xf32>, {type_}"
        )
        return written

    def _counts(self, ow: str, T: int) -> str:
        """Per lane i of the T-lane tile at `ow`, the taps inside the image along W (f32):
        min(start + K, W) - max(start, 0), start = (ow + i)*s - pl."""
        p = self.pool
        s, k, pl = p.strides[1], p.kernel[1], p.padding[1]
        vec = f"vector<{T}xi32>"
        first = self.emit(f"arith.index_cast {self.affine(ow, s, -pl)}", "index to i32")
        steps = ", ".join(str(i * s) for i in range(T))
        start = self.emit(
            f"arith.addi {self.emit(f'vector.broadcast {first}', f'i32 to {vec}')}, "
            f"{self.emit(f'arith.constant dense<[{steps}]>', vec)}",
            vec,
        )
        end = self.emit(f"arith.addi {start}, {self.emit(f'arith.constant dense<{k}>', vec)}", vec)
        end = self.emit(f"arith.minsi {end}, {self.emit('vector.broadcast %wide', f'i32 to {vec}')}", vec)
        begin = self.emit(f"arith.maxsi {start}, {self.emit('arith.constant dense<0>', vec)}", vec)
        inside = self.emit(f"arith.subi {end}, {begin}", vec)
        return self.emit(f"arith.sitofp {inside}", f"{vec} to vector<{T}xf32>")
