package dev.sharray;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * Immutable description of an array view inside a shared file: (path, byte offset of the first element,
 * shape, signed byte strides, dtype, byte order). It is what crosses to another JVM instead of the data;
 * {@link SharedArray#open(Descriptor)} maps exactly this view there.
 *
 * <p>Binary form ({@link #toBytes()}), all integers little-endian:
 * <pre>
 *   int32  magic 0x59415253 ("SRAY")   u8 version (1)   u8 dtype code   u8 byte order (0 little, 1 big)
 *   u8     ndim (0..32)                int64 offset     int64[ndim] shape   int64[ndim] strides
 *   u16    path length                 UTF-8 path       int32 CRC-32C of all preceding bytes
 * </pre>
 */
public final class Descriptor {
    /** "SRAY" read as a little-endian int. */
    static final int MAGIC = 0x59415253;
    /** Current binary version. */
    static final int VERSION = 1;
    /** Most dimensions a descriptor may carry (NumPy's limit is 64; 32 is the historical one). */
    public static final int MAX_NDIM = 32;
    /** Longest path accepted, in UTF-8 bytes. */
    public static final int MAX_PATH_BYTES = 4096;

    private static final int FIXED_HEADER = 4 + 1 + 1 + 1 + 1 + 8;

    private final Path path;
    private final long offset;
    private final long[] shape;
    private final long[] strides;
    private final DType dtype;
    private final ByteOrder byteOrder;

    Descriptor(Path path, long offset, long[] shape, long[] strides, DType dtype, ByteOrder byteOrder) {
        this(path, offset, shape, strides, dtype, byteOrder, true);
    }

    /** @param checkPathLength false when the path came from descriptor bytes, whose length field bounds it */
    private Descriptor(Path path, long offset, long[] shape, long[] strides, DType dtype, ByteOrder byteOrder,
                       boolean checkPathLength) {
        this.path = path;
        this.offset = offset;
        this.shape = shape.clone();
        this.strides = strides.clone();
        this.dtype = dtype;
        this.byteOrder = byteOrder;
        validate(checkPathLength);
    }

    /** @return the file holding the data (a {@code .npy} file) */
    public Path path() {
        return path;
    }

    /** @return byte offset of the first element from the start of the file */
    public long offset() {
        return offset;
    }

    /** @return the shape (a copy) */
    public long[] shape() {
        return shape.clone();
    }

    /** @return signed byte strides per axis (a copy) */
    public long[] strides() {
        return strides.clone();
    }

    /** @return element type */
    public DType dtype() {
        return dtype;
    }

    /** @return byte order of the elements (sharray writes little-endian) */
    public ByteOrder byteOrder() {
        return byteOrder;
    }

    /** @return number of elements of the view */
    public long size() {
        return Shapes.size(shape);
    }

    /** @return the compact, versioned, checksummed binary form */
    public byte[] toBytes() {
        byte[] pathBytes = path.toString().getBytes(StandardCharsets.UTF_8);
        int n = shape.length;
        ByteBuffer b = ByteBuffer.allocate(FIXED_HEADER + 16 * n + 2 + pathBytes.length + 4)
            .order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC).put((byte) VERSION).put((byte) dtype.ordinal())
            .put((byte) (byteOrder == ByteOrder.LITTLE_ENDIAN ? 0 : 1)).put((byte) n).putLong(offset);
        for (long s : shape) {
            b.putLong(s);
        }
        for (long s : strides) {
            b.putLong(s);
        }
        b.putShort((short) pathBytes.length).put(pathBytes);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, b.position());
        b.putInt((int) crc.getValue());
        return b.array();
    }

    /**
     * Parses {@link #toBytes()} output. Nothing is opened or mapped.
     *
     * @param bytes the binary form
     * @return the descriptor
     * @throws InvalidDescriptorException naming the field when the bytes are truncated, corrupted, of another
     *     format or of a newer version, or describe an impossible array
     */
    public static Descriptor fromBytes(byte[] bytes) {
        if (bytes == null) {
            throw new InvalidDescriptorException("bytes", "null");
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        need(b, 4, "magic");
        int magic = b.getInt();
        if (magic != MAGIC) {
            throw new InvalidDescriptorException("magic",
                String.format("0x%08x is not a sharray descriptor (expected 0x%08x)", magic, MAGIC));
        }
        need(b, 1, "version");
        int version = b.get() & 0xff;
        if (version != VERSION) {
            throw new InvalidDescriptorException("version", "version " + version
                + (version > VERSION ? " is newer than this library supports (" + VERSION + ")" : " is not supported"));
        }
        need(b, 3 + 8, "header");
        int dtypeCode = b.get() & 0xff;
        int order = b.get() & 0xff;
        int ndim = b.get() & 0xff;
        long offset = b.getLong();
        if (ndim > MAX_NDIM) {
            throw new InvalidDescriptorException("ndim", ndim + " exceeds " + MAX_NDIM);
        }
        need(b, 16L * ndim + 2, "shape/strides");
        long[] shape = new long[ndim];
        long[] strides = new long[ndim];
        for (int i = 0; i < ndim; i++) {
            shape[i] = b.getLong();
        }
        for (int i = 0; i < ndim; i++) {
            strides[i] = b.getLong();
        }
        int pathLength = b.getShort() & 0xffff;
        if (pathLength == 0 || pathLength > MAX_PATH_BYTES) {
            throw new InvalidDescriptorException("path", "length " + pathLength + " out of range 1.." + MAX_PATH_BYTES);
        }
        need(b, pathLength + 4, "path");
        int pathStart = b.position();
        b.position(pathStart + pathLength);
        int end = b.position();
        int storedCrc = b.getInt();
        if (b.hasRemaining()) {
            throw new InvalidDescriptorException("length", b.remaining() + " unexpected trailing bytes");
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, end);
        if ((int) crc.getValue() != storedCrc) {
            throw new InvalidDescriptorException("checksum", "CRC-32C mismatch: the descriptor bytes are corrupted");
        }
        if (order > 1) {
            throw new InvalidDescriptorException("byteOrder", "unknown byte order code " + order);
        }
        if (order != 0) {
            throw new InvalidDescriptorException("byteOrder", "big-endian arrays are not supported");
        }
        DType dtype = DType.fromCode(dtypeCode);
        return new Descriptor(parsePath(decodePath(bytes, pathStart, pathLength)), offset, shape, strides, dtype,
            ByteOrder.LITTLE_ENDIAN, false);
    }

    /**
     * Strict UTF-8. An ASCII path (sharray's own always is) skips the decoder: a worker decodes a descriptor
     * per task, mostly before the JIT has compiled this, and the decoder's set-up was most of the cost.
     */
    private static String decodePath(byte[] bytes, int start, int length) {
        boolean ascii = true;
        for (int i = start; i < start + length && ascii; i++) {
            ascii = bytes[i] >= 0;
        }
        if (ascii) {
            return new String(bytes, start, length, StandardCharsets.ISO_8859_1);
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(bytes, start, length)).toString();
        } catch (CharacterCodingException e) {
            throw new InvalidDescriptorException("path", "not valid UTF-8");
        }
    }

    private static Path parsePath(String text) {
        if (text.indexOf('\0') >= 0) {
            throw new InvalidDescriptorException("path", "contains a NUL character");
        }
        Path p;
        try {
            p = Path.of(text);
        } catch (InvalidPathException e) {
            throw new InvalidDescriptorException("path", "invalid path '" + text + "'");
        }
        if (!p.isAbsolute()) {
            throw new InvalidDescriptorException("path", "'" + text + "' is not absolute");
        }
        return p;
    }

    private static void need(ByteBuffer b, long n, String field) {
        if (b.remaining() < n) {
            throw new InvalidDescriptorException(field, "truncated: need " + n + " more bytes, have " + b.remaining());
        }
    }

    private void validate(boolean checkPathLength) {
        if (path == null || dtype == null || byteOrder == null) {
            throw new InvalidDescriptorException("path", "path, dtype and byte order are required");
        }
        if (shape.length != strides.length) {
            throw new InvalidDescriptorException("strides", "has " + strides.length + " entries for " + shape.length + " axes");
        }
        if (shape.length > MAX_NDIM) {
            throw new InvalidDescriptorException("ndim", shape.length + " exceeds " + MAX_NDIM);
        }
        if (offset < 0) {
            throw new InvalidDescriptorException("offset", "negative: " + offset);
        }
        if (checkPathLength && path.toString().getBytes(StandardCharsets.UTF_8).length > MAX_PATH_BYTES) {
            throw new InvalidDescriptorException("path", "longer than " + MAX_PATH_BYTES + " bytes");
        }
        Shapes.checkShape(shape, dtype);
        Shapes.checkExtent(offset, shape, strides, dtype);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Descriptor)) {
            return false;
        }
        Descriptor d = (Descriptor) o;
        return offset == d.offset && path.equals(d.path) && Arrays.equals(shape, d.shape)
            && Arrays.equals(strides, d.strides) && dtype == d.dtype && byteOrder.equals(d.byteOrder);
    }

    @Override
    public int hashCode() {
        return ((path.hashCode() * 31 + Long.hashCode(offset)) * 31 + Arrays.hashCode(shape)) * 31
            + Arrays.hashCode(strides) + dtype.hashCode();
    }

    /** @return e.g. {@code Descriptor[/dev/shm/.../a1.npy +128 float64 (3, 4) strides (32, 8) little-endian]} */
    @Override
    public String toString() {
        return "Descriptor[" + path + " +" + offset + " " + dtype.name().toLowerCase() + " " + Shapes.tuple(shape)
            + " strides " + Shapes.tuple(strides) + " " + (byteOrder == ByteOrder.LITTLE_ENDIAN ? "little" : "big")
            + "-endian]";
    }

}
