package dev.sharray;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** sharray files are valid .npy files for NumPy, and NumPy's files open in sharray, both zero-copy. */
class NpyInteropTest {
    @Test
    void numpyMapsOurFileAndWritesCrossBothWays() throws Exception {
        for (DType t : DType.values()) {
            try (SharedArray a = SharedArray.create(t, 3, 4)) {
                for (int i = 0; i < 3; i++) {
                    for (int j = 0; j < 4; j++) {
                        a.setByte((byte) (i * 4 + j), i, j);
                    }
                }
                String out = Python.run(String.join("\n",
                    "import sys, numpy as np",
                    "a = np.load(sys.argv[1], mmap_mode='r+')",
                    "b = np.load(sys.argv[1])",
                    "assert isinstance(a, np.memmap)",
                    "print(a.dtype.str, a.shape, a.flags['C_CONTIGUOUS'], int(a.sum()), int(b.sum()), a.offset % 64)",
                    "a[2, 3] = 99",
                    "a.flush()"), a.path().toString());
                assertEquals(t.numpyDescr() + " (3, 4) True 66 66 0", out, t.toString());
                assertEquals(99.0, t == DType.INT64 ? (double) a.getLong(2, 3) : a.getDouble(2, 3), "numpy write seen");
            }
        }
    }

    @Test
    void headerIsAValidNpyVersion1HeaderWith64ByteAlignedData() throws Exception {
        try (SharedArray a = SharedArray.create(DType.INT16, 5, 7, 2);
             FileChannel ch = FileChannel.open(a.path(), StandardOpenOption.READ)) {
            NpyHeader h = NpyHeader.read(ch);
            assertEquals(DType.INT16, h.dtype);
            assertArrayEquals(new long[] {5, 7, 2}, h.shape);
            assertFalse(h.fortranOrder);
            assertEquals(0, h.dataOffset % 64);
            assertEquals(h.dataOffset, a.offset());
            byte[] head = new byte[(int) h.dataOffset];
            ch.read(java.nio.ByteBuffer.wrap(head), 0);
            assertEquals((byte) 0x93, head[0]);
            assertEquals("NUMPY", new String(head, 1, 5, java.nio.charset.StandardCharsets.US_ASCII));
            assertEquals(1, head[6]);
            assertEquals('\n', head[head.length - 1]);
        }
    }

    @Test
    void numpyWrittenCAndFortranOrderFilesOpenInPlace(@TempDir Path dir) throws Exception {
        Path c = dir.resolve("c.npy");
        Path f = dir.resolve("f.npy");
        Path i32 = dir.resolve("i.npy");
        Python.run(String.join("\n",
            "import sys, numpy as np",
            "a = np.arange(24, dtype='<f8').reshape(2, 3, 4)",
            "np.save(sys.argv[1], a)",
            "np.save(sys.argv[2], np.asfortranarray(a))",
            "np.save(sys.argv[3], np.arange(10, dtype=np.int32)[::-1].copy())"), c.toString(), f.toString(), i32.toString());
        for (Path p : new Path[] {c, f}) {
            try (SharedArray a = SharedArray.openNpy(p)) {
                assertArrayEquals(new long[] {2, 3, 4}, a.shape());
                for (int i = 0; i < 2; i++) {
                    for (int j = 0; j < 3; j++) {
                        for (int k = 0; k < 4; k++) {
                            assertEquals(i * 12 + j * 4 + k, a.getDouble(i, j, k), p + " at " + i + "," + j + "," + k);
                        }
                    }
                }
                assertEquals(p == c, a.isContiguous());
                a.setDouble(-1, 1, 2, 3);
            }
            assertEquals("-1.0", Python.run("import sys, numpy as np; print(np.load(sys.argv[1])[1, 2, 3])", p.toString()));
        }
        try (SharedArray a = SharedArray.openNpy(i32)) {
            assertEquals(DType.INT32, a.dtype());
            assertArrayEquals(new int[] {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}, a.toIntArray());
        }
        assertTrue(Files.exists(c), "a user's own .npy file is never deleted");
    }

    @Test
    void headersLongerThanTheFirstReadOpenWhole(@TempDir Path dir) throws Exception {
        // the first read of a header takes 256 bytes: a longer header (versions 1.0 and 2.0) must be read on to its end
        for (int major = 1; major <= 2; major++) {
            final int prefix = major == 1 ? 10 : 12;
            // spaces within the dict (valid Python) put its shape beyond the first read
            final String dict = "{'descr': '<f8', 'fortran_order': False," + " ".repeat(400) + "'shape': (2, 3), }";
            final int total = 1024; // prefix + header: the data starts there, 64-byte aligned
            final String header = dict + " ".repeat(total - prefix - dict.length() - 1) + "\n";
            final java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(total + 6 * 8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            b.put(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', (byte) major, 0});
            if (major == 1) {
                b.putShort((short) header.length());
            } else {
                b.putInt(header.length());
            }
            b.put(header.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            for (int i = 0; i < 6; i++) {
                b.putDouble(i + 0.5);
            }
            final Path file = dir.resolve("long" + major + ".npy");
            Files.write(file, b.array());
            try (SharedArray a = SharedArray.openNpy(file)) {
                assertArrayEquals(new long[] {2, 3}, a.shape());
                assertEquals(5.5, a.getDouble(1, 2), "version " + major);
            }
        }
    }

    @Test
    void aMissingFileIsNoSuchFileUnlessItIsAReleasedArraysFile(@TempDir Path dir) {
        // before: "the array .../typo.npy has been released by all its holders" for a user's mistyped path
        final Path typo = dir.resolve("typo.npy");
        java.io.UncheckedIOException e = assertThrows(java.io.UncheckedIOException.class, () -> SharedArray.openNpy(typo));
        assertEquals("no such file: " + typo, e.getMessage());
        assertInstanceOf(java.nio.file.NoSuchFileException.class, e.getCause());
        final SharedArray a = SharedArray.create(DType.FLOAT64, 4);
        final Path released = a.path();
        a.release();
        IllegalStateException gone = assertThrows(IllegalStateException.class, () -> SharedArray.openNpy(released));
        assertTrue(gone.getMessage().contains("released"), gone.getMessage());
    }

    @Test
    void malformedNpyHeadersGiveSpecificErrors(@TempDir Path dir) throws Exception {
        Path p = dir.resolve("bad.npy");
        Files.write(p, "not numpy at all".getBytes());
        assertEquals("npy.magic", assertThrows(InvalidDescriptorException.class, () -> SharedArray.openNpy(p)).field());
        byte[] good = NpyHeader.encode(DType.FLOAT64, new long[] {4});
        Files.write(p, good); // header says 32 data bytes, file has none
        assertEquals("npy.shape", assertThrows(InvalidDescriptorException.class, () -> SharedArray.openNpy(p)).field());
        Files.write(p, new String(good, java.nio.charset.StandardCharsets.ISO_8859_1).replace("<f8", ">f8")
            .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
        assertEquals("descr", assertThrows(InvalidDescriptorException.class, () -> SharedArray.openNpy(p)).field());
        Files.write(p, new String(good, java.nio.charset.StandardCharsets.ISO_8859_1).replace("'shape': (4,)", "'shape': (x,)")
            .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
        assertEquals("shape", assertThrows(InvalidDescriptorException.class, () -> SharedArray.openNpy(p)).field());
    }

    @Test
    void emptyArraysWithDimensionsOf19DigitsOpenAsNumpyWritesAndReadsThem(@TempDir Path dir) throws Exception {
        // a zero dimension makes any other one legal; before, a dimension of 10^18 or more was refused, so
        // sharray could not reopen such an array it had created (in another JVM), nor open NumPy's
        for (long[] shape : new long[][] {{1_000_000_000_000_000_000L, 0}, {0, Long.MAX_VALUE}, {0, 0L, 7}}) {
            assertArrayEquals(shape, NpyHeader.parseDict(headerDict(NpyHeader.encode(DType.INT8, shape)), 128).shape);
        }
        final Path p = dir.resolve("empty.npy");
        Python.run("import sys, numpy as np; np.save(sys.argv[1], np.empty((10**18, 0)))", p.toString());
        try (SharedArray a = SharedArray.openNpy(p)) {
            assertArrayEquals(new long[] {1_000_000_000_000_000_000L, 0}, a.shape());
            assertEquals(0, a.size());
        }
        // and 00 is 0 in Python, as it is here
        assertArrayEquals(new long[] {0, 3},
            NpyHeader.parseDict("{'descr': '<f8', 'fortran_order': False, 'shape': (00, 3), }", 128).shape);
    }

    /**
     * The header is padded to a multiple of 64 bytes and ends with a newline; for a dict whose length leaves exactly
     * no room for that newline in its block, the padding must take a whole block more. Shapes whose dicts cover
     * every length modulo 64 (zero-size, so any dimension is legal): each header is aligned, ends with its newline,
     * and parses back; and such an array is created and reopened.
     */
    @Test
    void headersOfEveryLengthModulo64AreAlignedAndEndWithANewline(@TempDir Path dir) throws Exception {
        final java.util.Set<Integer> residues = new java.util.HashSet<>();
        long[] boundary = null;
        for (int ones = 0; ones < 24 && residues.size() < 64; ones++) {
            for (long n = 1; n > 0 && n <= Long.MAX_VALUE / 10; n *= 10) {
                final long[] shape = new long[ones + 2]; // (0, n, 1, 1, ...)
                java.util.Arrays.fill(shape, 1);
                shape[0] = 0;
                shape[1] = n;
                final byte[] header = NpyHeader.encode(DType.FLOAT64, shape);
                final int dictLength = headerDict(header).trim().length();
                residues.add((10 + dictLength) % 64);
                if ((10 + dictLength) % 64 == 0) {
                    boundary = shape;
                }
                assertEquals(0, header.length % 64, java.util.Arrays.toString(shape));
                assertEquals('\n', header[header.length - 1], java.util.Arrays.toString(shape));
                assertArrayEquals(shape, NpyHeader.parseDict(headerDict(header), header.length).shape);
            }
        }
        assertEquals(64, residues.size(), "every header length modulo 64 was tried");
        try (SharedArray a = SharedArray.builder(DType.FLOAT64, boundary).folder(dir).create()) {
            try (SharedArray b = SharedArray.open(a.descriptor())) {
                assertArrayEquals(boundary, b.shape());
            }
            try (FileChannel ch = FileChannel.open(a.path(), StandardOpenOption.READ)) {
                assertEquals(a.offset(), NpyHeader.read(ch).dataOffset);
            }
        }
    }

    /** The dict of an encoded header: the bytes after the magic, the version and the length field. */
    private static String headerDict(byte[] header) {
        return new String(header, 10, header.length - 10, java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    @Test
    void headersNumpyCannotParseAreRefusedAndADuplicateKeyReadsAsNumpyReadsIt() {
        // NumPy 1.24 (literal_eval) refuses both: "Cannot parse header"; before, the first was read as
        // shape (3,) and the second as shape (4,)
        for (String dict : new String[] {
            "{'descr': '<f8', 'fortran_order': False, 'shape': (\u0663,), }",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), } junk",
            "{'descr': '<f8', 'fortran_order': False, 'shape':\u2003(4,), }",
            // (4) is an int, not a tuple ("shape is not valid"); 04 is a syntax error in Python 3: both were (4,)
            "{'descr': '<f8', 'fortran_order': False, 'shape': (4), }",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (04,), }",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 9223372036854775808), }",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 99999999999999999999), }"}) {
            InvalidDescriptorException e = assertThrows(InvalidDescriptorException.class, () -> NpyHeader.parseDict(dict, 128), dict);
            assertTrue(e.field().equals("shape") || e.field().equals("npy.header"), e.field() + ": " + e.getMessage());
        }
        // NumPy takes the last of a key given twice
        NpyHeader h = NpyHeader.parseDict("{'descr': '<f8', 'fortran_order': False, 'shape': (4,), 'shape': (2,), }\n", 128);
        assertArrayEquals(new long[] {2}, h.shape);
    }
}
