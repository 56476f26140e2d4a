package dev.sharray.codec;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Argument validation, done in full before any kernel runs: nothing a caller passes may reach C
 * unchecked. Each method returns the common shard length it established.
 */
final class Checks {
    private final int k;
    private final int n;

    Checks(int k, int n) {
        this.k = k;
        this.n = n;
    }

    /** Every shard non-null, same non-zero length. */
    int heap(byte[][] shards) {
        count(shards);
        int len = -1;
        for (int i = 0; i < n; i++) {
            if (shards[i] == null) {
                throw new NullPointerException("shard " + i + " is null");
            }
            len = sameLength(i, shards[i].length, len, "");
        }
        return len;
    }

    void range(int offset, int length, int shardLength) {
        if (offset < 0 || length < 1 || offset > shardLength - length) {
            throw new IndexOutOfBoundsException("offset " + offset + " and length " + length
                + " out of range for shards of length " + shardLength);
        }
    }

    /**
     * Present shards non-null with one length; missing ones null or of that length. {@code present} is the
     * caller's array: it is checked and copied into {@code copy} (see {@link #present}), and only the copy is read.
     */
    int heapReconstruct(byte[][] shards, boolean[] present, boolean[] copy) {
        count(shards);
        present = present(present, copy);
        int len = -1;
        for (int i = 0; i < n; i++) {
            if (present[i]) {
                if (shards[i] == null) {
                    throw new NullPointerException("shard " + i + " is marked present but is null");
                }
                len = sameLength(i, shards[i].length, len, "");
            }
        }
        for (int i = 0; i < n; i++) {
            if (!present[i] && shards[i] != null && shards[i].length != len) {
                throw new IllegalArgumentException("missing shard " + i + " has length " + shards[i].length
                    + ", expected " + len + " (or null to allocate it)");
            }
        }
        return len;
    }

    /**
     * Every buffer direct with the same non-zero remaining(); {@code writable[i]} ones not read-only (that they
     * overlap no other is {@link #writtenDisjoint}'s check). Each buffer's position and limit are read once, here, and
     * {@code addresses[i]} gets the address of that position: the kernels use these and never the buffers'
     * fields again, so another thread moving a position during the call changes which bytes are coded but
     * cannot make C reach outside a buffer.
     */
    int buffers(ByteBuffer[] shards, boolean[] writable, long[] addresses) {
        count(shards);
        int len = -1;
        for (int i = 0; i < n; i++) {
            ByteBuffer b = shards[i];
            if (b == null) {
                throw new NullPointerException("shard " + i + " is null");
            }
            if (!b.isDirect()) {
                throw new IllegalArgumentException("shard " + i + " is not a direct ByteBuffer");
            }
            if (writable[i] && b.isReadOnly()) {
                throw new IllegalArgumentException("shard " + i + " is read-only but must be written");
            }
            final int position = b.position();
            final int remaining = b.limit() - position; // negative only when another thread moved them meanwhile
            if (remaining < 0) {
                throw new IllegalArgumentException("shard " + i + " changed while it was checked (position past "
                    + "limit): no other thread may move a shard's position or limit during a call");
            }
            len = sameLength(i, remaining, len, " bytes remaining");
            addresses[i] = Buffers.base(b) + position;
        }
        return len;
    }

    /**
     * The shards a call writes overlap no other ({@link #disjoint}). Called once the call holds the buffers'
     * arenas: the address of a buffer whose arena is closed may have been handed out again, to another shard, and
     * such a buffer must be refused as closed, not as overlapping that shard.
     *
     * @param addresses the shards' addresses from {@link #buffers}, each {@code length} bytes long
     */
    void writtenDisjoint(boolean[] writable, long[] addresses, long length) {
        for (int w = 0; w < n; w++) {
            if (writable[w]) {
                disjoint(w, addresses[w], length, addresses, w);
            }
        }
    }

    /**
     * A shard the call writes must not share memory with any other shard: the kernels would read what they
     * have just written (or zero a source before reading it) and corrupt data without an error.
     *
     * @param what      the written range's name in messages (a shard index, or -1 for newData)
     * @param addresses the shards' addresses from {@link #buffers}, each {@code length} bytes long
     * @param skip      the index not to compare with (the range's own shard), or -1
     */
    void disjoint(int what, long address, long length, long[] addresses, int skip) {
        for (int j = 0; j < n; j++) {
            if (j == skip) {
                continue;
            }
            long other = addresses[j];
            if (address < other + length && other < address + length) {
                throw new IllegalArgumentException((what < 0 ? "newData" : "shard " + what)
                    + " overlaps shard " + j + " in memory; shards that are written must not overlap any other");
            }
        }
    }

    /**
     * Shard arrays that the call writes appear once: the same array as another shard would be overwritten
     * while it is read.
     *
     * @param written which shards the call writes (null entries are skipped)
     */
    void notAliased(byte[][] shards, boolean[] written) {
        for (int w = 0; w < n; w++) {
            if (!written[w] || shards[w] == null) {
                continue;
            }
            for (int j = 0; j < n; j++) {
                if (j != w && shards[j] == shards[w]) {
                    throw new IllegalArgumentException("shard " + w + " is the same array as shard " + j
                        + "; shards that are written must not be another shard");
                }
            }
        }
    }

    /** A live, contiguous UINT8 array of shape (k + m, shardLength >= 1); returns shardLength. */
    long stripe(SharedArray stripe) {
        if (stripe == null) {
            throw new NullPointerException("stripe must not be null");
        }
        if (stripe.isReleased()) {
            throw new IllegalStateException("stripe has been released");
        }
        if (stripe.dtype() != DType.UINT8) {
            throw new IllegalArgumentException("stripe dtype is " + stripe.dtype() + ", expected UINT8");
        }
        long[] shape = stripe.shape();
        if (shape.length != 2 || shape[0] != n || shape[1] < 1) {
            throw new IllegalArgumentException("stripe shape is " + Arrays.toString(shape) + ", expected [" + n
                + ", shardLength >= 1] (" + k + " data + " + (n - k) + " parity rows)");
        }
        if (!stripe.isContiguous()) {
            throw new IllegalArgumentException("stripe must be contiguous (row-major), but has strides "
                + Arrays.toString(stripe.strides()));
        }
        return shape[1];
    }

    /**
     * The present flags: right length, and at least k set. They are copied once, first, into {@code copy} (this
     * thread's scratch, at least n long; its entries from n on are cleared) and the count is taken on the copy:
     * the call then uses only the copy, so another thread changing the caller's array during the call cannot
     * make the decode plan (nor the plan cached under the pattern's key) disagree with what was checked.
     *
     * @return {@code copy}
     */
    boolean[] present(boolean[] present, boolean[] copy) {
        if (present == null) {
            throw new NullPointerException("present must not be null");
        }
        if (present.length != n) {
            throw new IllegalArgumentException("present has length " + present.length + ", expected " + n);
        }
        System.arraycopy(present, 0, copy, 0, n);
        Arrays.fill(copy, n, copy.length, false);
        int count = 0;
        for (int i = 0; i < n; i++) {
            if (copy[i]) {
                count++;
            }
        }
        if (count < k) {
            throw new TooFewShardsException(count, k);
        }
        return copy;
    }

    void dataIndex(int dataIndex) {
        if (dataIndex < 0 || dataIndex >= k) {
            throw new IndexOutOfBoundsException("dataIndex " + dataIndex + " out of range [0, " + k + ")");
        }
    }

    static void newDataLength(long actual, long expected) {
        if (actual != expected) {
            throw new IllegalArgumentException("newData has length " + actual + ", expected " + expected);
        }
    }

    private void count(Object[] shards) {
        if (shards == null) {
            throw new NullPointerException("shards must not be null");
        }
        if (shards.length != n) {
            throw new IllegalArgumentException("expected " + n + " shards (" + k + " data + " + (n - k)
                + " parity), got " + shards.length);
        }
    }

    private static int sameLength(int i, int length, int expected, String unit) {
        if (expected < 0) {
            if (length == 0) {
                throw new IllegalArgumentException("shard " + i + " is empty; shards must hold at least 1 byte");
            }
            return length;
        }
        if (length != expected) {
            throw new IllegalArgumentException(unit.isEmpty()
                ? "shard " + i + " has length " + length + ", expected " + expected
                : "shard " + i + " has " + length + unit + ", expected " + expected);
        }
        return expected;
    }
}
