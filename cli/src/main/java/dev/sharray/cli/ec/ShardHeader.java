package dev.sharray.cli.ec;

import dev.sharray.codec.Matrix;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * The fixed 64-byte, little-endian header at the start of every shard file:
 * <pre>
 *  0  magic "SHARRAYS" (8)     8  version u16     10 header length u16 (64)
 * 12  k u16                   14  m u16           16 matrix u8 (0 Vandermonde, 1 Cauchy)
 * 17  shard index u8          18  reserved (6)
 * 24  shard length u64        32  original file length u64
 * 40  set id u64 (random)     48  CRC-32C of the body u32
 * 52  reserved (8)            60  CRC-32C of bytes 0..59 u32
 * </pre>
 * The body (shard length bytes) follows. A header that fails its own CRC is reported as corrupted.
 *
 * @param version        format version
 * @param k              data shards
 * @param m              parity shards
 * @param matrix         generator matrix
 * @param index          this shard's index, 0..k+m-1 (data first)
 * @param shardLength    body length in bytes
 * @param originalLength length of the encoded file
 * @param setId          random id shared by the shards of one encoding
 * @param bodyCrc        CRC-32C of the body
 */
public record ShardHeader(int version, int k, int m, Matrix matrix, int index, long shardLength, long originalLength,
                          long setId, int bodyCrc) {
    /** Header size in bytes; the body starts here. */
    public static final int SIZE = 64;
    /** The format version this code writes and reads. */
    public static final int VERSION = 1;
    private static final byte[] MAGIC = "SHARRAYS".getBytes(StandardCharsets.US_ASCII);

    /** @return the header bytes, ready to write at offset 0 */
    public ByteBuffer toBuffer() {
        ByteBuffer b = ByteBuffer.allocate(SIZE).order(ByteOrder.LITTLE_ENDIAN);
        b.put(MAGIC).putShort((short) version).putShort((short) SIZE).putShort((short) k).putShort((short) m)
            .put((byte) matrix.ordinal()).put((byte) index);
        b.position(24);
        b.putLong(shardLength).putLong(originalLength).putLong(setId).putInt(bodyCrc);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, 60);
        b.putInt(60, (int) crc.getValue());
        b.position(0);
        return b;
    }

    /**
     * @param crc the body CRC
     * @return this header with {@code bodyCrc} set
     */
    public ShardHeader withBodyCrc(int crc) {
        return new ShardHeader(version, k, m, matrix, index, shardLength, originalLength, setId, crc);
    }

    /**
     * @param i shard index
     * @return this header for shard {@code i}
     */
    public ShardHeader withIndex(int i) {
        return new ShardHeader(version, k, m, matrix, i, shardLength, originalLength, setId, 0);
    }

    /**
     * @param other another header
     * @return whether both belong to the same encoding (same set id and geometry)
     */
    public boolean sameSet(ShardHeader other) {
        return setId == other.setId && k == other.k && m == other.m && matrix == other.matrix
            && shardLength == other.shardLength && originalLength == other.originalLength && version == other.version;
    }

    /**
     * @param originalLength length of the file
     * @param k              data shards
     * @return bytes per shard: {@code ceil(originalLength / k)}, 0 for an empty file (its shards are bare headers)
     */
    public static long shardLengthOf(long originalLength, int k) {
        return originalLength / k + (originalLength % k == 0 ? 0 : 1); // not (length + k - 1) / k: it can overflow
    }

    /**
     * Parses and checks a header. Its shard length must be the one its original length and k give: a header
     * edited to say "empty file" (or any other length) over a full body is not a shard of that file.
     *
     * @param bytes at least {@link #SIZE} bytes from the start of a shard file
     * @return the header
     * @throws BadShardException naming what is wrong (magic, header checksum, version, fields)
     */
    public static ShardHeader parse(byte[] bytes) throws BadShardException {
        if (bytes.length < SIZE) {
            throw new BadShardException("truncated header (" + bytes.length + " bytes)");
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < MAGIC.length; i++) {
            if (bytes[i] != MAGIC[i]) {
                throw new BadShardException("not a shard file (bad magic)");
            }
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, 60);
        if ((int) crc.getValue() != b.getInt(60)) {
            throw new BadShardException("header checksum mismatch");
        }
        int version = Short.toUnsignedInt(b.getShort(8));
        if (version != VERSION) {
            throw new BadShardException.Version(version);
        }
        int headerLen = Short.toUnsignedInt(b.getShort(10));
        int k = Short.toUnsignedInt(b.getShort(12));
        int m = Short.toUnsignedInt(b.getShort(14));
        int matrix = Byte.toUnsignedInt(b.get(16));
        int index = Byte.toUnsignedInt(b.get(17));
        long shardLength = b.getLong(24);
        long originalLength = b.getLong(32);
        if (headerLen != SIZE || k < 1 || m < 1 || k + m > 256 || matrix >= Matrix.values().length || index >= k + m
            || originalLength < 0 || shardLength != shardLengthOf(originalLength, k)) {
            throw new BadShardException("inconsistent header fields");
        }
        return new ShardHeader(version, k, m, Matrix.values()[matrix], index, shardLength, originalLength,
            b.getLong(40), b.getInt(48));
    }
}
