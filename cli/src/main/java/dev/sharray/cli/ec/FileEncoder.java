package dev.sharray.cli.ec;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import dev.sharray.cli.CliException;
import dev.sharray.cli.SharedMemory;
import dev.sharray.cli.Parallel;
import dev.sharray.cli.TaskFailedException;
import dev.sharray.cli.Progress;
import dev.sharray.cli.Ui;
import dev.sharray.codec.ErasureCodec;
import dev.sharray.codec.Matrix;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Encodes a file into k + m shard files. The whole file is one stripe: data shard i holds bytes
 * {@code [i*L, (i+1)*L)} of the zero-padded file, {@code L = ceil(length/k)}. The input is mapped read-only
 * window by window (never copied into the heap); each window's parity is computed in parallel, then each
 * shard's slice is checksummed and appended to its file in parallel. Memory stays flat in the file size:
 * m parity windows plus one padding window.
 */
public final class FileEncoder {
    private static final SecureRandom RANDOM = new SecureRandom();

    /**
     * What an encoding produced.
     *
     * @param dir         the shard directory
     * @param header      the set's header (index 0)
     * @param seconds     wall time
     */
    public record Result(Path dir, ShardHeader header, double seconds) {
    }

    private FileEncoder() {
    }

    /**
     * @param input    the file to encode (never modified)
     * @param outDir   where the shard files go (created if needed)
     * @param k        data shards
     * @param m        parity shards
     * @param matrix   generator matrix
     * @param force    replace shard files already in {@code outDir}
     * @param compute  runs the coding (worker JVMs or threads)
     * @param io       runs checksums and writes (threads in this JVM)
     * @return the result
     */
    public static Result encode(Path input, Path outDir, int k, int m, Matrix matrix, boolean force, Parallel compute,
                                Parallel io) {
        long t0 = System.nanoTime();
        Inputs.requireReadableFile(input);
        Inputs.requireNotAShard(input, outDir); // encoding would replace (or remove) its own input
        ErasureCodec.builder(k, m).matrix(matrix); // validates k and m before anything is written
        boolean createdDir = prepareDir(outDir, force);
        // the input is valid: worker start-up (~0.3 s) now overlaps staging the outputs
        compute.startEarly(worker -> WindowCoder.warmUp(k, m, matrix));
        int n = k + m;
        boolean done = false;
        try (FileChannel in = FileChannel.open(input, StandardOpenOption.READ); StagedFiles staged = new StagedFiles()) {
            long length = in.size();
            long shardLen = length == 0 ? 0 : (length + k - 1) / k;
            ShardHeader proto = new ShardHeader(ShardHeader.VERSION, k, m, matrix, 0, shardLen, length, RANDOM.nextLong(), 0);
            FileChannel[] out = new FileChannel[n];
            for (int i = 0; i < n; i++) {
                out[i] = staged.create(ShardFiles.shard(outDir, i));
                out[i].position(ShardHeader.SIZE);
            }
            int[] crcs = new int[n];
            encodeBody(input, in, length, shardLen, k, m, matrix, out, crcs, compute, io);
            for (int i = 0; i < n; i++) {
                Io.writeFully(out[i], proto.withIndex(i).withBodyCrc(crcs[i]).toBuffer(), 0);
            }
            staged.commit();
            if (force) {
                removeStale(outDir, n);
            }
            done = true;
            return new Result(outDir, proto, (System.nanoTime() - t0) / 1e9);
        } catch (IOException | TaskFailedException e) {
            throw new CliException("cannot encode " + input + " into " + outDir + ": " + Io.reason(e), e);
        } finally {
            if (!done && createdDir) {
                try {
                    Files.deleteIfExists(outDir);
                } catch (IOException ignored) {
                    // not empty or gone: leave it
                }
            }
        }
    }

    /**
     * Window by window: the workers code window N+1 (and checksum its parts) while threads here write window
     * N: data shards straight from the input file by kernel copy, parity from the shared window.
     */
    private static void encodeBody(Path input, FileChannel in, long length, long shardLen, int k, int m, Matrix matrix,
                                   FileChannel[] out, int[] crcs, Parallel compute, Parallel io) throws IOException {
        int n = k + m;
        int window = Windows.columns(m, shardLen); // m parity rows, double-buffered
        EncodeJob job = new EncodeJob(input.toAbsolutePath().toString(), length, shardLen, k, m, matrix, window);
        try (SharedArray parity = SharedArray.create(DType.UINT8, 2L * m, window);
             Progress progress = Progress.start("encode", k * shardLen);
             WriteBehind writer = new WriteBehind()) {
            ByteBuffer zeros = ByteBuffer.allocateDirect(window);
            long computeNanos = 0;
            long waitNanos = 0;
            int buffer = 0;
            for (long c0 = 0; c0 < shardLen; c0 += window) {
                final long col = c0;
                final int w = (int) Math.min(window, shardLen - c0);
                final int row0 = buffer * m;
                List<long[]> parts = Windows.split(c0, w, compute.workers()).stream()
                    .map(p -> new long[] {p[0], p[1], p[2], row0}).toList();
                // captures only the record and the shared array: both cross to worker JVMs
                long tc = System.nanoTime();
                List<int[]> partCrcs = compute.map(part -> WindowCoder.encode(job, parity, part), parts);
                long tw = System.nanoTime();
                computeNanos += tw - tc;
                writer.await();
                waitNanos += System.nanoTime() - tw;
                for (int p = 0; p < parts.size(); p++) {
                    for (int i = 0; i < n; i++) {
                        crcs[i] = Crc32c.combine(crcs[i], partCrcs.get(p)[i], parts.get(p)[2]);
                    }
                }
                writer.submit(() -> {
                    io.map(i -> {
                        if (i < k) {
                            writeData(in, length, i * shardLen + col, w, out[i], zeros);
                        } else {
                            Io.writeFully(out[i], SharedMemory.bytes(parity, (long) (row0 + i - k) * window, w), -1);
                        }
                        return null;
                    }, IntStream.range(0, n).boxed().toList());
                    progress.advance((long) k * w);
                    return null;
                });
                buffer ^= 1;
            }
            long tw = System.nanoTime();
            writer.await();
            waitNanos += System.nanoTime() - tw;
            if (Ui.verbose()) {
                Ui.info(String.format("encode: %.3f s coding on %s, %.3f s waiting for writes", computeNanos / 1e9,
                    compute.describe(), waitNanos / 1e9));
            }
        }
    }

    /** Appends {@code [pos, pos+w)} of the zero-padded input to {@code out}: a kernel copy, then zeros past the end. */
    private static void writeData(FileChannel in, long length, long pos, int w, FileChannel out, ByteBuffer zeros)
        throws IOException {
        long avail = Math.max(0, Math.min(w, length - pos));
        long done = 0;
        while (done < avail) {
            long t = in.transferTo(pos + done, avail - done, out);
            if (t <= 0) {
                throw new IOException("the input shrank while encoding");
            }
            done += t;
        }
        if (avail < w) {
            Io.writeFully(out, zeros.duplicate().limit((int) (w - avail)), -1);
        }
    }

    private static boolean prepareDir(Path dir, boolean force) {
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new CliException("output is not a directory: " + dir);
        }
        if (Files.isDirectory(dir)) {
            if (!force && hasShards(dir)) {
                throw new CliException("output directory already holds shard files: " + dir + " (use --force to replace them)");
            }
            return false;
        }
        try {
            Files.createDirectories(dir);
            return true;
        } catch (IOException e) {
            throw new CliException("cannot create output directory " + dir + ": " + Io.reason(e), e);
        }
    }

    private static boolean hasShards(Path dir) {
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                if (ShardFiles.NAME.matcher(p.getFileName().toString()).matches()) {
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            throw new CliException("cannot read output directory " + dir + ": " + Io.reason(e), e);
        }
    }

    /** After a forced re-encode with fewer shards, old shard files beyond the new set would confuse decoding. */
    private static void removeStale(Path dir, int n) throws IOException {
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                var m = ShardFiles.NAME.matcher(p.getFileName().toString());
                if (m.matches() && Integer.parseInt(m.group(1)) >= n) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }
}
