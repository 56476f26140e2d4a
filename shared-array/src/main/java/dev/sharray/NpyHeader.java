package dev.sharray;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The header of a NumPy {@code .npy} file (format 1.0, 2.0 and 3.0): dtype, order, shape and where the
 * data starts. sharray writes version 1.0 (2.0 for huge headers) with the data 64-byte aligned.
 */
final class NpyHeader {
    static final int ALIGN = 64;
    private static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};
    private static final int MAX_HEADER = 1 << 20;
    /** Bytes the first read of a header asks for: the prefix and, most often, the whole header. */
    private static final int FIRST_READ = 256;

    final DType dtype;
    final boolean fortranOrder;
    final long[] shape;
    final long dataOffset;

    NpyHeader(DType dtype, boolean fortranOrder, long[] shape, long dataOffset) {
        this.dtype = dtype;
        this.fortranOrder = fortranOrder;
        this.shape = shape;
        this.dataOffset = dataOffset;
    }

    long dataBytes() {
        return Shapes.size(shape) * dtype.byteSize();
    }

    long[] strides() {
        return fortranOrder ? Shapes.fortranStrides(shape, dtype.byteSize()) : Shapes.cStrides(shape, dtype.byteSize());
    }

    /** Encodes a C-order header padded so that the data starts on a 64-byte boundary. */
    static byte[] encode(DType dtype, long[] shape) {
        String dict = "{'descr': '" + dtype.numpyDescr() + "', 'fortran_order': False, 'shape': "
            + Shapes.tuple(shape) + ", }";
        int prefix = 6 + 2 + 2;
        int major = 1;
        if (prefix + dict.length() + 1 > 65535) {
            prefix = 6 + 2 + 4;
            major = 2;
        }
        int total = (prefix + dict.length() + 1 + ALIGN - 1) / ALIGN * ALIGN;
        int headerLength = total - prefix;
        ByteBuffer b = ByteBuffer.allocate(total).order(ByteOrder.LITTLE_ENDIAN);
        b.put(MAGIC).put((byte) major).put((byte) 0);
        if (major == 1) {
            b.putShort((short) headerLength);
        } else {
            b.putInt(headerLength);
        }
        b.put(dict.getBytes(StandardCharsets.US_ASCII));
        while (b.position() < total - 1) {
            b.put((byte) ' ');
        }
        b.put((byte) '\n');
        return b.array();
    }

    /**
     * Reads and validates the header at the start of {@code channel}, including that the file holds all
     * the data it announces.
     *
     * @throws InvalidDescriptorException naming the field for any malformed header
     */
    static NpyHeader read(FileChannel channel) throws IOException {
        return read(channel, channel.size());
    }

    /**
     * Reads the header with one read call where it fits in {@value #FIRST_READ} bytes (sharray's own headers are 128,
     * as NumPy's usually are): an open reads it on every map of a file, and a second read of the rest cost a system
     * call more each time.
     *
     * @param fileSize the file's size, which the caller asked the channel already
     */
    static NpyHeader read(FileChannel channel, long fileSize) throws IOException {
        ByteBuffer pre = ByteBuffer.allocate(FIRST_READ).order(ByteOrder.LITTLE_ENDIAN);
        channel.read(pre, 0);
        if (pre.position() < 10) {
            throw new InvalidDescriptorException("npy.magic", "file too short for a .npy header (" + fileSize + " bytes)");
        }
        for (int i = 0; i < MAGIC.length; i++) {
            if (pre.get(i) != MAGIC[i]) {
                throw new InvalidDescriptorException("npy.magic", "not a .npy file (bad magic)");
            }
        }
        int major = pre.get(6) & 0xff;
        int minor = pre.get(7) & 0xff;
        if (minor != 0) {
            // only 1.0, 2.0 and 3.0 exist; NumPy refuses any other minor version, whose meaning is unknown
            throw new InvalidDescriptorException("npy.version", "unsupported .npy format version " + major + "." + minor);
        }
        long headerLength;
        int prefix;
        if (major == 1) {
            headerLength = pre.getShort(8) & 0xffff;
            prefix = 10;
        } else if (major == 2 || major == 3) {
            if (pre.position() < 12) {
                throw new InvalidDescriptorException("npy.headerLength", "truncated");
            }
            headerLength = pre.getInt(8) & 0xffffffffL;
            prefix = 12;
        } else {
            throw new InvalidDescriptorException("npy.version", "unsupported .npy format version " + major + "." + minor);
        }
        if (headerLength > MAX_HEADER || prefix + headerLength > fileSize) {
            throw new InvalidDescriptorException("npy.headerLength", headerLength + " bytes does not fit the file of " + fileSize + " bytes");
        }
        ByteBuffer text = ByteBuffer.allocate((int) headerLength);
        // what the first read brought of it, then the rest
        text.put(pre.array(), prefix, (int) Math.min(headerLength, Math.max(0, pre.position() - prefix)));
        while (text.hasRemaining() && channel.read(text, prefix + text.position()) > 0) {
            // keep reading
        }
        String dict = new String(text.array(), 0, text.position(),
            major == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
        NpyHeader h = parseDict(dict, prefix + headerLength, major <= 2);
        if (Long.compareUnsigned(h.dataOffset + h.dataBytes(), fileSize) > 0) {
            throw new InvalidDescriptorException("npy.shape", "shape " + Shapes.tuple(h.shape) + " needs "
                + h.dataBytes() + " data bytes but the file has " + (fileSize - h.dataOffset));
        }
        return h;
    }

    /** The dict of a format 1.0 or 2.0 header (a dimension may carry Python 2's {@code L}). */
    static NpyHeader parseDict(String dict, long dataOffset) {
        return parseDict(dict, dataOffset, true);
    }

    /**
     * @param python2Longs whether a dimension may end in Python 2's {@code L}: NumPy drops it from format 1.0 and
     *     2.0 headers only, and refuses a 3.0 header that has one ("Cannot parse header"): 3.0 came after Python 2
     */
    static NpyHeader parseDict(String dict, long dataOffset, boolean python2Longs) {
        DictParser p = new DictParser(dict, python2Longs);
        String descr = null;
        Boolean fortran = null;
        long[] shape = null;
        p.expect('{');
        while (!p.peek('}')) { // a key given twice: the last one counts, as in NumPy's reader
            String key = p.string("npy.header");
            p.expect(':');
            switch (key) {
                case "descr":
                    descr = p.string("descr");
                    break;
                case "fortran_order":
                    fortran = p.bool("fortran_order");
                    break;
                case "shape":
                    shape = p.shape();
                    break;
                default:
                    throw new InvalidDescriptorException("npy.header", "unexpected key '" + key + "'");
            }
            if (!p.peek('}')) {
                p.expect(',');
            }
        }
        p.end();
        if (descr == null || fortran == null || shape == null) {
            throw new InvalidDescriptorException("npy.header", "needs the keys descr, fortran_order and shape: " + dict.trim());
        }
        DType dtype = DType.fromNumpyDescr(descr);
        Shapes.checkShape(shape, dtype);
        return new NpyHeader(dtype, fortran, shape, dataOffset);
    }

    /** Just enough of a Python literal parser for the header dict. */
    private static final class DictParser {
        private final String s;
        private final boolean python2Longs;
        private int i;

        DictParser(String s, boolean python2Longs) {
            this.s = s;
            this.python2Longs = python2Longs;
        }

        /** Python's whitespace between tokens: ASCII only, as NumPy's reader (literal_eval) takes it. */
        private void skip() {
            while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t' || s.charAt(i) == '\n'
                || s.charAt(i) == '\r')) {
                i++;
            }
        }

        /** The closing brace, then only the padding NumPy writes (spaces, a newline). */
        void end() {
            expect('}');
            skip();
            if (i < s.length()) {
                throw new InvalidDescriptorException("npy.header", "unexpected text after the header dict at position " + i);
            }
        }

        boolean peek(char c) {
            skip();
            if (i >= s.length()) {
                throw new InvalidDescriptorException("npy.header", "unterminated header dict");
            }
            return s.charAt(i) == c;
        }

        void expect(char c) {
            if (!peek(c)) {
                throw new InvalidDescriptorException("npy.header", "expected '" + c + "' at position " + i + " of " + s.trim());
            }
            i++;
        }

        String string(String field) {
            skip();
            if (i >= s.length() || (s.charAt(i) != '\'' && s.charAt(i) != '"')) {
                throw new InvalidDescriptorException(field, "expected a quoted string at position " + i);
            }
            char q = s.charAt(i++);
            int end = s.indexOf(q, i);
            if (end < 0) {
                throw new InvalidDescriptorException(field, "unterminated string");
            }
            String v = s.substring(i, end);
            i = end + 1;
            return v;
        }

        boolean bool(String field) {
            skip();
            if (s.startsWith("True", i)) {
                i += 4;
                return true;
            }
            if (s.startsWith("False", i)) {
                i += 5;
                return false;
            }
            throw new InvalidDescriptorException(field, "expected True or False at position " + i);
        }

        long[] shape() {
            expect('(');
            List<Long> dims = new ArrayList<>();
            boolean comma = false;
            while (!peek(')')) {
                dims.add(dimension());
                if (i < s.length() && s.charAt(i) == 'L') {
                    if (!python2Longs) {
                        throw new InvalidDescriptorException("shape", "dimension " + dims.get(dims.size() - 1)
                            + "L at position " + i + ": a Python 2 long, which NumPy reads in format 1.0 and 2.0"
                            + " headers only");
                    }
                    i++; // a Python 2 long, as NumPy reads too
                }
                if (!peek(')')) {
                    expect(',');
                    comma = true;
                }
                if (dims.size() > Descriptor.MAX_NDIM) {
                    throw new InvalidDescriptorException("ndim", "more than " + Descriptor.MAX_NDIM + " dimensions");
                }
            }
            if (dims.size() == 1 && !comma) {
                // (4) is the number 4 in Python, not a tuple: NumPy refuses it
                throw new InvalidDescriptorException("shape", "(" + dims.get(0) + ") is not a tuple: a one-dimensional"
                    + " shape is written (" + dims.get(0) + ",)");
            }
            i++;
            // a loop, not a stream: this runs at every first open in a fresh worker, where a LongStream
            // pipeline means ~30 more classes to load
            final long[] shape = new long[dims.size()];
            for (int d = 0; d < shape.length; d++) {
                shape[d] = dims.get(d);
            }
            return shape;
        }

        /** A Python int literal of ASCII digits (not other scripts' digits), up to 2^63 - 1. */
        private long dimension() {
            final int start = i;
            while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
                i++;
            }
            if (start == i) {
                throw new InvalidDescriptorException("shape", "expected a non-negative dimension at position " + start);
            }
            final String digits = s.substring(start, i);
            int zeros = 0;
            while (zeros < digits.length() && digits.charAt(zeros) == '0') {
                zeros++;
            }
            if (zeros == digits.length()) {
                return 0;
            }
            if (zeros > 0) {
                // 04 is a syntax error in Python 3: NumPy cannot parse the header
                throw new InvalidDescriptorException("shape", "dimension " + digits + " at position " + start
                    + " has a leading zero");
            }
            if (digits.length() > 19 || digits.length() == 19 && digits.compareTo(String.valueOf(Long.MAX_VALUE)) > 0) {
                throw new InvalidDescriptorException("shape", "dimension " + digits + " at position " + start
                    + " exceeds 2^63 - 1");
            }
            return Long.parseLong(digits);
        }
    }
}
