package dev.sharray;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Results NumPy computes from the same data, found by a differential run against NumPy. */
class NumpyAgreementTest {
    @Test
    void float32ScalarArithmeticRoundsTheScalarToFloatFirstAsNumpyDoes() throws Exception {
        float[] x = {0.9906209f, 41559936f, -1027f, 1f, -1509616f, 0.83700943f};
        double[] scalars = {16777217.0, -2169292798.0, 48.68374437949734, -108.47756953634888, 0.1, 1e300, 1e-300};
        try (SharedArray a = SharedArray.copyOf(x)) {
            StringBuilder java = new StringBuilder();
            for (double s : scalars) {
                for (HeapArray h : new HeapArray[] {a.add(s), a.subtract(s), a.multiply(s), a.divide(s)}) {
                    assertEquals(DType.FLOAT32, h.dtype());
                    for (float f : h.toFloatArray()) {
                        java.append(Integer.toHexString(Float.floatToRawIntBits(f))).append(' ');
                    }
                }
            }
            // NumPy 2 (NEP 50) casts the Python float to float32; 1.24's value-based casting does the same for every
            // scalar here but 1e300, which it would promote to float64, so that one is cast explicitly
            String numpy = Python.run(String.join("\n",
                "import sys, numpy as np",
                "np.seterr(all='ignore')",
                "a = np.load(sys.argv[1])",
                "out = []",
                "for s in [16777217.0, -2169292798.0, 48.68374437949734, -108.47756953634888, 0.1, 1e300, 1e-300]:",
                "    s = np.float32(s)",
                "    for r in (a + s, a - s, a * s, a / s):",
                "        assert r.dtype == np.float32",
                "        out += ['%x' % v for v in r.view(np.uint32)]",
                "print(' '.join(out))"), a.path().toString());
            // before: computed in double and rounded once, [0.9906209f] + 16777217 gave 16777218, NumPy 16777216
            assertEquals(numpy, java.toString().trim());
        }
        assertArrayEquals(new float[] {16777216f}, HeapArray.of(new float[] {1f}).add(16777217.0).toFloatArray());
    }

    /**
     * sum() adds in NumPy's pairwise order: the same bits as numpy.sum for every length up to 8,192, where NumPy 1
     * and 2 agree (NumPy 2 goes on pairwise over the whole array, NumPy 1 adds blocks of 8,192 one by one). Before,
     * four interleaved running sums differed in the last bits from about 8 values on, and their error grew with the
     * length: 10^7 times 0.1 gave 1,000,000.00004.
     */
    @Test
    void sumAddsInNumpysPairwiseOrder() throws Exception {
        final java.util.Random random = new java.util.Random(5);
        final int[] lengths = {1, 7, 8, 9, 100, 128, 129, 136, 1000, 4099, 8192};
        final StringBuilder sums = new StringBuilder();
        try (SharedArray all = SharedArray.create(DType.FLOAT64, java.util.Arrays.stream(lengths).sum())) {
            long at = 0;
            for (int n : lengths) {
                try (SharedArray part = all.slice(0, at, at + n, 1)) {
                    for (int i = 0; i < n; i++) {
                        part.setDouble(random.nextGaussian() * Math.pow(10, random.nextInt(12) - 6), i);
                    }
                    sums.append(Long.toHexString(Double.doubleToRawLongBits(part.sum()))).append(' ');
                }
                at += n;
            }
            final String numpy = Python.run(String.join("\n",
                "import sys, numpy as np",
                "a = np.load(sys.argv[1], mmap_mode='r')",
                "out, at = [], 0",
                "for n in map(int, sys.argv[2:]):",
                "    out.append('%x' % np.float64(np.sum(a[at:at + n])).view(np.uint64))",
                "    at += n",
                "print(' '.join(out))"),
                java.util.stream.Stream.concat(java.util.stream.Stream.of(all.path().toString()),
                    java.util.Arrays.stream(lengths).mapToObj(Integer::toString)).toArray(String[]::new));
            assertEquals(numpy, sums.toString().trim());
        }
        final double[] tenths = new double[10_000_000];
        java.util.Arrays.fill(tenths, 0.1);
        assertEquals(1_000_000.0, HeapArray.of(tenths).sum(), "the nearest double to the exact sum");
    }

    @Test
    void everyEmptyViewIsContiguousAndReshapesAsInNumpy() throws Exception {
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 5, 3, 1, 0); SharedArray t = a.transpose();
             SharedArray b = SharedArray.create(DType.INT32, 2, 3, 4); SharedArray s = b.slice(1, 2, 0, 1);
             SharedArray p = s.permute(2, 1, 0)) {
            String numpy = Python.run(String.join("\n",
                "import sys, numpy as np",
                "t = np.load(sys.argv[1], mmap_mode='r').T",
                "p = np.load(sys.argv[2], mmap_mode='r')[:, 2:0, :].transpose(2, 1, 0)",
                "print(t.shape, t.flags['C_CONTIGUOUS'], p.shape, p.flags['C_CONTIGUOUS'], t.reshape(0, 15).shape)"),
                a.path().toString(), b.path().toString());
            assertEquals("(0, 1, 3, 5) True (4, 0, 2) True (0, 15)", numpy);
            assertArrayEquals(new long[] {0, 1, 3, 5}, t.shape());
            assertArrayEquals(new long[] {4, 0, 2}, p.shape());
            // before: both false (only a length-0 axis that came last counted), and reshape threw IllegalStateException
            assertTrue(t.isContiguous());
            assertTrue(p.isContiguous());
            try (SharedArray r = t.reshape(0, 15); SharedArray q = p.reshape(2, 0)) {
                assertArrayEquals(new long[] {0, 15}, r.shape());
                assertArrayEquals(new long[] {2, 0}, q.shape());
                assertEquals(0, r.toDoubleArray().length);
                try (SharedArray reopened = SharedArray.open(Descriptor.fromBytes(q.descriptor().toBytes()))) {
                    assertArrayEquals(new long[] {2, 0}, reopened.shape());
                }
            }
        }
    }

    @Test
    void npyFilesOfAnUnknownMinorVersionAreRefusedAsNumpyRefusesThem(@TempDir Path dir) throws Exception {
        for (int[] version : new int[][] {{1, 1}, {2, 5}, {3, 9}}) {
            byte[] header = NpyHeader.encode(DType.FLOAT64, new long[] {6});
            if (version[0] != 1) {
                // format 2.0 and 3.0 take a 4-byte header length: two more prefix bytes, two fewer spaces of padding
                byte[] longer = new byte[header.length];
                System.arraycopy(header, 0, longer, 0, 8);
                longer[8] = (byte) (header.length - 12);
                System.arraycopy(header, 10, longer, 12, header.length - 12);
                header = longer;
            }
            header[6] = (byte) version[0];
            header[7] = (byte) version[1];
            Path file = dir.resolve("v" + version[0] + version[1] + ".npy");
            Files.write(file, header);
            Files.write(file, new byte[48], StandardOpenOption.APPEND);
            String numpy = Python.run(String.join("\n",
                "import sys, numpy as np",
                "try:",
                "    np.load(sys.argv[1], mmap_mode='r')",
                "    print('loaded')",
                "except ValueError as e:",
                "    print('refused')"), file.toString());
            assertEquals("refused", numpy);
            // before: only the major version was checked, and 1.1 or 2.5 mapped as 1.0 or 2.0
            InvalidDescriptorException e = assertThrows(InvalidDescriptorException.class, () -> SharedArray.openNpy(file));
            assertEquals("npy.version", e.field());
            assertTrue(e.getMessage().contains(version[0] + "." + version[1]), e.getMessage());
            header[7] = 0;
            Files.write(file, header);
            Files.write(file, new byte[48], StandardOpenOption.APPEND);
            try (SharedArray ok = SharedArray.openNpy(file)) {
                assertArrayEquals(new double[6], ok.toDoubleArray());
            }
        }
    }
    @Test
    void floatCopiesIntoFloat32ViewsKeepEveryNanPayloadAsNumpyCopiesDo() throws Exception {
        // signalling NaNs (quiet bit clear) of both signs, a quiet NaN with a payload, and ordinary values
        int[] bits = {0x7f800001, 0xff800005, 0x7fa783b0, 0x7fc58d5e, 0x3f800000, 0x80000000};
        float[] values = new float[bits.length];
        for (int i = 0; i < bits.length; i++) {
            values[i] = Float.intBitsToFloat(bits[i]);
        }
        try (SharedArray a = SharedArray.create(DType.FLOAT32, 2, 3); SharedArray t = a.transpose();
             SharedArray r = SharedArray.create(DType.FLOAT32, 12); SharedArray every2nd = r.slice(0, 10, -1, -2)) {
            t.copyFrom(values);
            every2nd.copyFrom(values);
            String numpy = Python.run(String.join("\n",
                "import sys, numpy as np",
                "v = np.array([int(x, 16) for x in sys.argv[1].split()], dtype=np.uint32).view(np.float32)",
                "a = np.zeros((2, 3), np.float32)",
                "a.T[...] = v.reshape(3, 2)",
                "r = np.zeros(12, np.float32)",
                "r[10::-2] = v",
                "print(' '.join('%x' % x for x in np.concatenate([a.ravel(), r]).view(np.uint32)))"),
                java.util.Arrays.stream(bits).mapToObj(Integer::toHexString).collect(java.util.stream.Collectors.joining(" ")));
            HeapArray h = HeapArray.zeros(DType.FLOAT32, 6);
            h.copyFrom(values);
            StringBuilder java = new StringBuilder();
            for (float f : a.toFloatArray()) {
                java.append(Integer.toHexString(Float.floatToRawIntBits(f))).append(' ');
            }
            for (float f : r.toFloatArray()) {
                java.append(Integer.toHexString(Float.floatToRawIntBits(f))).append(' ');
            }
            // before: a strided view or a heap array took each float through a double, which quieted the signalling
            // NaNs (0x7f800001 became 0x7fc00001); a dense view's memcpy kept them
            assertEquals(numpy, java.toString().trim());
            for (int i = 0; i < bits.length; i++) {
                assertEquals(bits[i], Float.floatToRawIntBits(((float[]) h.data())[i]), "heap element " + i);
            }
        }
    }
    @Test
    void aPython2LongInTheShapeIsReadFromFormat2HeadersButRefusedInFormat3AsNumpyDoes(@TempDir Path dir) throws Exception {
        for (int major : new int[] {1, 2, 3}) {
            String dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (2L, 3), }";
            int prefix = major == 1 ? 10 : 12;
            StringBuilder padded = new StringBuilder(dict);
            while ((prefix + padded.length() + 1) % 64 != 0) {
                padded.append(' ');
            }
            byte[] text = padded.append('\n').toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(prefix + text.length + 48)
                .order(java.nio.ByteOrder.LITTLE_ENDIAN);
            b.put(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', (byte) major, 0});
            if (major == 1) {
                b.putShort((short) text.length);
            } else {
                b.putInt(text.length);
            }
            b.put(text);
            for (int i = 0; i < 6; i++) {
                b.putDouble(i);
            }
            Path file = dir.resolve("v" + major + ".npy");
            Files.write(file, b.array());
            String numpy = Python.run(String.join("\n",
                "import sys, numpy as np",
                "try:",
                "    print(np.load(sys.argv[1], mmap_mode='r').shape)",
                "except ValueError as e:",
                "    print('refused')"), file.toString());
            if (major < 3) {
                assertEquals("(2, 3)", numpy);
                try (SharedArray a = SharedArray.openNpy(file)) {
                    assertArrayEquals(new long[] {2, 3}, a.shape());
                    assertEquals(5.0, a.getDouble(1, 2));
                }
            } else {
                assertEquals("refused", numpy);
                // before: read as (2, 3) whatever the version; format 3.0 came after Python 2 and has no longs
                InvalidDescriptorException e = assertThrows(InvalidDescriptorException.class, () -> SharedArray.openNpy(file));
                assertEquals("shape", e.field());
                assertTrue(e.getMessage().contains("2L"), e.getMessage());
            }
        }
    }

    @Test
    void aTypeStringWithoutAByteOrderIsReadInNativeOrderAsNumpyReadsIt(@TempDir Path dir) throws Exception {
        for (DType t : DType.values()) {
            String descr = t.numpyDescr().substring(1); // "f8": hand-written, np.save always writes "<f8"
            String dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (3,), }";
            StringBuilder padded = new StringBuilder(dict);
            while ((10 + padded.length() + 1) % 64 != 0) {
                padded.append(' ');
            }
            byte[] text = padded.append('\n').toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(10 + text.length + 3 * t.byteSize())
                .order(java.nio.ByteOrder.LITTLE_ENDIAN);
            b.put(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0}).putShort((short) text.length).put(text);
            for (int v = 1; v <= 3; v++) {
                switch (t) {
                    case INT8, UINT8 -> b.put((byte) v);
                    case INT16 -> b.putShort((short) v);
                    case INT32 -> b.putInt(v);
                    case INT64 -> b.putLong(v);
                    case FLOAT32 -> b.putFloat(v);
                    case FLOAT64 -> b.putDouble(v);
                }
            }
            Path file = dir.resolve(descr + ".npy");
            Files.write(file, b.array());
            String numpy = Python.run(String.join("\n",
                "import sys, numpy as np",
                "a = np.load(sys.argv[1], mmap_mode='r')",
                "print(a.dtype.str, a.tolist())"), file.toString());
            String values = t.isFloating() ? "[1.0, 2.0, 3.0]" : "[1, 2, 3]";
            assertEquals(t.numpyDescr() + " " + values, numpy);
            // before: "unsupported NumPy dtype 'f8'", though NumPy reads the file and "<f8" is supported
            try (SharedArray a = SharedArray.openNpy(file)) {
                assertEquals(t, a.dtype());
                assertEquals(6.0, a.sum(), descr);
            }
        }
    }

    /** One case: a view of one of the test's arrays (NumPy's expression, and sharray's) taken as another dtype. */
    private record DtypeCase(String numpy, String descr, java.util.function.Function<SharedArray[], List<SharedArray>> view) {
    }

    @Test
    void dtypeViewsHaveNumpysShapesStridesAndValuesAndRefuseWhatNumpyRefusesOrLeavesUnaligned() throws Exception {
        double[] f64 = new double[12];
        for (int i = 0; i < f64.length; i++) {
            f64[i] = Math.scalb(i * 1.375 - 5, i - 6);
        }
        f64[3] = -0.0;
        f64[7] = Double.longBitsToDouble(0x7ff0_0000_dead_beefL); // a signalling NaN with a payload
        int[] i32 = new int[12];
        for (int i = 0; i < i32.length; i++) {
            i32[i] = (i % 2 == 0 ? 1 : -1) * 0x0102_0304 * (i + 1);
        }
        float[] f32 = new float[24];
        for (int i = 0; i < f32.length; i++) {
            f32[i] = i / 3f - 4;
        }
        f32[5] = Float.intBitsToFloat(0x7f80_0001);
        List<DtypeCase> cases = List.of(
            new DtypeCase("f", "u1", a -> List.of(a[0].retain())),
            new DtypeCase("f", "i8", a -> List.of(a[0].retain())),
            new DtypeCase("f", "f4", a -> List.of(a[0].retain())),
            new DtypeCase("f", "i2", a -> List.of(a[0].retain())),
            new DtypeCase("f[1:3]", "u1", a -> List.of(a[0].slice(0, 1, 3, 1))),
            new DtypeCase("f[1]", "f4", a -> List.of(a[0].select(0, 1))),
            new DtypeCase("f[::-1]", "i2", a -> List.of(a[0].slice(0, 2, -1, -1))),
            new DtypeCase("f[:, 1:3]", "f4", a -> List.of(a[0].slice(1, 1, 3, 1))),
            new DtypeCase("f[:, ::2]", "u1", a -> List.of(a[0].slice(1, 0, 4, 2))),   // a column slice
            new DtypeCase("f.T", "u1", a -> List.of(a[0].transpose())),
            new DtypeCase("f.T", "i8", a -> List.of(a[0].transpose())),
            new DtypeCase("f[2, 1, ...]", "u1", a -> chain(a[0].select(0, 2), v -> v.select(0, 1))),
            new DtypeCase("f[2, 1, ...]", "i8", a -> chain(a[0].select(0, 2), v -> v.select(0, 1))),
            new DtypeCase("i", "i8", a -> List.of(a[1].retain())),
            new DtypeCase("i", "u1", a -> List.of(a[1].retain())),
            new DtypeCase("i", "i2", a -> List.of(a[1].retain())),
            new DtypeCase("i", "f4", a -> List.of(a[1].retain())),
            new DtypeCase("i[1]", "f8", a -> List.of(a[1].select(0, 1))),
            new DtypeCase("i[:, 1:5]", "i8", a -> List.of(a[1].slice(1, 1, 5, 1))),   // NumPy: unaligned
            new DtypeCase("i[:, 1:4]", "f8", a -> List.of(a[1].slice(1, 1, 4, 1))),   // 12 bytes a row
            new DtypeCase("g", "f8", a -> List.of(a[2].retain())),
            new DtypeCase("g", "u1", a -> List.of(a[2].retain())),
            new DtypeCase("g[1:3]", "f8", a -> List.of(a[2].slice(0, 1, 3, 1))),
            new DtypeCase("g[1::2]", "f8", a -> List.of(a[2].slice(0, 1, 4, 2))),
            new DtypeCase("g[::-2]", "i2", a -> List.of(a[2].slice(0, 3, -1, -2))),
            new DtypeCase("g[:, 1:5]", "f8", a -> List.of(a[2].slice(1, 1, 5, 1))),   // NumPy: unaligned
            new DtypeCase("g[:, 2:2]", "f8", a -> List.of(a[2].slice(1, 2, 2, 1))),   // an empty last axis
            new DtypeCase("g[:, :3][:, ::3]", "u1", a -> chain(a[2].slice(1, 0, 3, 1), v -> v.slice(1, 0, 3, 3))));
        try (SharedArray f = SharedArray.create(DType.FLOAT64, 3, 4);
             SharedArray i = SharedArray.create(DType.INT32, 2, 6);
             SharedArray g = SharedArray.create(DType.FLOAT32, 4, 6)) {
            f.copyFrom(f64);
            i.copyFrom(i32);
            g.copyFrom(f32);
            List<String> args = new java.util.ArrayList<>(List.of(f.path().toString(), i.path().toString(),
                g.path().toString()));
            StringBuilder java = new StringBuilder();
            for (DtypeCase c : cases) {
                args.add(c.numpy());
                args.add(c.descr());
                List<SharedArray> made = c.view().apply(new SharedArray[] {f, i, g});
                try (SharedArray v = made.get(made.size() - 1).viewAs(DType.fromNumpyDescr(c.descr()))) {
                    java.append(c.numpy()).append(' ').append(c.descr()).append(": ").append(Shapes.tuple(v.shape()))
                        .append(' ').append(v.size() == 0 ? "-" : Shapes.tuple(v.strides())).append(' ')
                        .append(rawBits(v)).append('\n');
                } catch (IllegalArgumentException e) {
                    // NumPy makes a view whose elements straddle boundaries (flags.aligned False); sharray refuses it
                    java.append(c.numpy()).append(' ').append(c.descr()).append(": ")
                        .append(e.getMessage().contains("element boundar") ? "unaligned" : "refused").append('\n');
                } finally {
                    made.forEach(SharedArray::release);
                }
            }
            String numpy = Python.run(String.join("\n",
                "import sys, numpy as np",
                "f, i, g = (np.load(p, mmap_mode='r') for p in sys.argv[1:4])",
                "out = []",
                "for expr, descr in zip(sys.argv[4::2], sys.argv[5::2]):",
                "    head = expr + ' ' + descr + ': '",
                "    try:",
                "        v = eval(expr).view(np.dtype(descr))",
                "    except ValueError:",
                "        out.append(head + 'refused')",
                "        continue",
                "    if not v.flags.aligned:",
                "        out.append(head + 'unaligned')",
                "        continue",
                "    tup = lambda t: '(' + ', '.join(map(str, t)) + (',)' if len(t) == 1 else ')')",
                "    bits = v.view('u%d' % v.itemsize).ravel()",
                "    out.append(head + tup(v.shape) + ' ' + ('-' if v.size == 0 else tup(v.strides)) + ' '",
                "               + ' '.join('%x' % x for x in bits))",
                "print('\\n'.join(out))"), args.toArray(new String[0]));
            assertEquals(numpy, java.toString().trim());
            assertTrue(numpy.contains("f[:, ::2] u1: refused") && numpy.contains("i[:, 1:5] i8: unaligned")
                && numpy.contains("g[:, 2:2] f8: (4, 0) -"), numpy);
            assertEquals(1, SharedArrays.localReferences(f));
        }
    }

    /** A view and the one made from it, both to release. */
    private static List<SharedArray> chain(SharedArray first, java.util.function.UnaryOperator<SharedArray> then) {
        try {
            return List.of(first, then.apply(first));
        } catch (RuntimeException e) {
            first.release();
            throw e;
        }
    }

    /** The view's elements in row-major order as hex of their raw bits, as unsigned as NumPy prints them. */
    private static String rawBits(SharedArray v) {
        StringBuilder sb = new StringBuilder();
        long[] shape = v.shape();
        long[] idx = new long[shape.length];
        long mask = v.dtype().byteSize() == 8 ? -1L : (1L << (8 * v.dtype().byteSize())) - 1;
        for (long n = 0; n < v.size(); n++) {
            long bits = switch (v.dtype()) {
                case FLOAT64 -> Double.doubleToRawLongBits(v.getDouble(idx));
                case FLOAT32 -> Float.floatToRawIntBits(v.getFloat(idx));
                default -> v.getLong(idx);
            };
            sb.append(n == 0 ? "" : " ").append(Long.toHexString(bits & mask));
            for (int d = shape.length - 1; d >= 0 && ++idx[d] == shape[d]; d--) {
                idx[d] = 0;
            }
        }
        return sb.toString();
    }
}
