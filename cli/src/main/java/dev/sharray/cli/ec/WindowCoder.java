package dev.sharray.cli.ec;

import dev.sharray.SharedArray;
import dev.sharray.cli.SharedMemory;
import dev.sharray.codec.Crc32c;
import dev.sharray.codec.Matrix;
import dev.sharray.codec.MemoryFaultException;
import dev.sharray.codec.SharedStripes;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The codec work on one part of a window, as it runs in a worker (JVM or thread): map the files' window
 * read-only, code into shared memory, unmap. A {@link WindowPart} covers columns
 * {@code [c0+start, c0+start+length)} of every shard, at offset {@code start} of the shared window rows.
 */
public final class WindowCoder {
    private WindowCoder() {
    }

    /**
     * Loads, in a worker, what {@link #encode} needs (the codec with its native code and tables, the
     * checksum), so the first window does not pay for it.
     *
     * @param k      data shards
     * @param m      parity shards
     * @param matrix generator matrix
     * @return null
     */
    public static Void warmUp(int k, int m, Matrix matrix) {
        SharedStripes.codec(k, m, matrix);
        Crc32c.update(0, ByteBuffer.allocateDirect(64));
        return null;
    }

    /**
     * Computes the parity of one part into the shared parity rows and checksums every shard's part.
     *
     * @param p the part; its job is an {@link EncodeJob}, its rows receive the parity from row {@code row0}
     * @return the CRC-32C of each shard's part (data then parity), to combine in part order
     */
    public static int[] encode(WindowPart p) throws IOException {
        EncodeJob job = (EncodeJob) p.job();
        int k = job.k();
        long col = p.c0() + p.start();
        int len = p.length();
        ByteBuffer[] shards = new ByteBuffer[k + job.m()];
        List<ByteBuffer> owned = new ArrayList<>();
        try (FileChannel in = FileChannel.open(Path.of(job.input()), StandardOpenOption.READ)) {
            for (int i = 0; i < k; i++) {
                long pos = i * job.shardLength() + col;
                ByteBuffer b = pos + len <= job.length() ? map(in, pos, len, "the input shrank while encoding")
                    : padded(in, job.length(), pos, len);
                owned.add(b);
                shards[i] = b;
            }
            for (int j = 0; j < job.m(); j++) {
                shards[k + j] = SharedMemory.bytes(p.rows(), (p.row0() + j) * job.window() + p.start(), len);
            }
            try {
                SharedStripes.codec(k, job.m(), job.matrix()).encode(shards);
            } catch (MemoryFaultException e) {
                throw encodeFault(e.shard(), job, e);
            }
            int[] crcs = new int[shards.length];
            for (int i = 0; i < shards.length; i++) {
                try {
                    crcs[i] = Crc32c.update(0, shards[i]); // not the JDK's CRC32C: a fault in it ends the JVM
                } catch (MemoryFaultException e) {
                    throw encodeFault(i, job, e);
                }
            }
            return crcs;
        } finally {
            owned.forEach(Mapped::unmap);
        }
    }

    /**
     * @param shard the shard whose memory faulted (-1: not known, then the input, the only memory another
     *              process is expected to cut short)
     * @return the failure to report: the parity rows' shared file was truncated, or the input was under its
     *     mapping, or, when it still has its length, a hole of the input could not be backed to be read
     */
    private static IOException encodeFault(int shard, EncodeJob job, MemoryFaultException e) {
        if (shard >= job.k()) {
            return new IOException("the shared memory of the parity was truncated while encoding", e);
        }
        final Path input = Path.of(job.input());
        try {
            if (Files.size(input) < job.length()) {
                return new IOException("the input shrank while encoding", e);
            }
            // not shrunk: a page the file system could not give (this used to say "the input shrank while encoding")
            return new IOException(Mapped.faultWithoutShrinking(input, "the input", "encode a copy without holes"), e);
        } catch (IOException gone) { // deleted or replaced meanwhile: as before
            return new IOException("the input shrank while encoding", e);
        }
    }

    /** @return why a shard faulted under its mapping, which reached {@code end} bytes into its body */
    private static String shardFault(ReconstructJob job, int shard, long end) {
        final Path file = Path.of(job.paths().get(shard));
        try {
            if (Files.size(file) >= ShardHeader.SIZE + end) {
                return Mapped.faultWithoutShrinking(file, "shard " + shard + " (" + file + ")",
                    "copy the shards to a file system with room");
            }
        } catch (IOException gone) {
            // removed meanwhile: it shrank, as far as this decode can tell
        }
        return shrankWhileDecoding(job, shard);
    }

    private static String shrankWhileDecoding(ReconstructJob job, int shard) {
        return "shard " + shard + " (" + job.paths().get(shard) + ") shrank while decoding";
    }

    /**
     * Rebuilds the non-intact shards of one part into their scratch rows.
     *
     * @param p the part; its job is a {@link ReconstructJob}, its rows are the scratch rows
     * @return null
     */
    public static Void reconstruct(WindowPart p) throws IOException {
        ReconstructJob job = (ReconstructJob) p.job();
        SharedArray scratch = p.rows();
        int n = job.k() + job.m();
        long col = p.c0() + p.start();
        int len = p.length();
        ByteBuffer[] shards = new ByteBuffer[n];
        List<ByteBuffer> maps = new ArrayList<>();
        List<FileChannel> channels = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                if (job.present()[i]) {
                    FileChannel ch = FileChannel.open(Path.of(job.paths().get(i)), StandardOpenOption.READ);
                    channels.add(ch);
                    ByteBuffer b;
                    try {
                        b = Mapped.map(ch, ShardHeader.SIZE + col, len);
                    } catch (EOFException e) { // the message only now: no string per shard and part on the way
                        throw new IOException(shrankWhileDecoding(job, i), e);
                    }
                    maps.add(b);
                    shards[i] = b;
                } else {
                    shards[i] = SharedMemory.bytes(scratch, job.rowOf()[i] * job.window() + p.start(), len);
                }
            }
            var codec = SharedStripes.codec(job.k(), job.m(), job.matrix());
            if (job.dataOnly()) {
                codec.reconstructData(shards, job.present());
            } else {
                codec.reconstruct(shards, job.present());
            }
        } catch (MemoryFaultException e) { // a mapped shard file, or the scratch rows' shared file, was truncated
            final int i = e.shard();
            throw new IOException(i < 0 ? "a shard shrank while decoding" : job.present()[i] ? shardFault(job, i, col + len)
                : "the shared memory of the rebuilt shards was truncated while decoding", e);
        } finally {
            maps.forEach(Mapped::unmap);
            for (FileChannel ch : channels) {
                ch.close();
            }
        }
        return null;
    }

    /** Maps a range the file had when the job began; {@code shrank} says why if it no longer has it. */
    private static ByteBuffer map(FileChannel ch, long pos, int len, String shrank) throws IOException {
        try {
            return Mapped.map(ch, pos, len);
        } catch (EOFException e) {
            throw new IOException(shrank, e);
        }
    }

    /** A zero-padded copy of {@code [pos, pos+len)} for the shard windows at or past the end of the file. */
    private static ByteBuffer padded(FileChannel in, long length, long pos, int len) throws IOException {
        ByteBuffer b = ByteBuffer.allocateDirect(len); // zero-filled
        if (pos < length) {
            ByteBuffer head = b.duplicate().limit((int) (length - pos));
            while (head.hasRemaining()) {
                if (in.read(head, pos + head.position()) < 0) {
                    throw new IOException("the input shrank while encoding");
                }
            }
        }
        return b;
    }
}
