package dev.sharray.cli.ec;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import dev.sharray.cli.CliException;
import dev.sharray.cli.SharedMemory;
import dev.sharray.cli.Parallel;
import dev.sharray.cli.TaskFailedException;
import dev.sharray.cli.Progress;
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
import java.util.zip.CRC32C;

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
        boolean createdDir = prepareDir(outDir, force);
        ErasureCodec.builder(k, m).matrix(matrix); // validates k and m before anything is written
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
            CRC32C[] crcs = new CRC32C[n];
            for (int i = 0; i < n; i++) {
                crcs[i] = new CRC32C();
            }
            encodeBody(input, in, length, shardLen, k, m, matrix, out, crcs, compute, io);
            for (int i = 0; i < n; i++) {
                Io.writeFully(out[i], proto.withIndex(i).withBodyCrc((int) crcs[i].getValue()).toBuffer(), 0);
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

    private static void encodeBody(Path input, FileChannel in, long length, long shardLen, int k, int m, Matrix matrix,
                                   FileChannel[] out, CRC32C[] crcs, Parallel compute, Parallel io) throws IOException {
        int n = k + m;
        int window = (int) Math.min(Windows.WINDOW, Math.max(shardLen, 1));
        EncodeJob job = new EncodeJob(input.toAbsolutePath().toString(), length, shardLen, k, m, matrix, window);
        try (SharedArray parity = SharedArray.create(DType.UINT8, m, window);
             Progress progress = Progress.start("encode", k * shardLen)) {
            ByteBuffer pad = ByteBuffer.allocateDirect(window);
            ByteBuffer zeros = ByteBuffer.allocateDirect(window);
            for (long c0 = 0; c0 < shardLen; c0 += window) {
                int w = (int) Math.min(window, shardLen - c0);
                ByteBuffer[] shards = new ByteBuffer[n];
                List<ByteBuffer> maps = new ArrayList<>();
                try {
                    compute.map(part -> WindowCoder.encode(job, parity, part), Windows.split(c0, w, compute.workers()));
                    for (int i = 0; i < k; i++) {
                        shards[i] = dataWindow(in, length, i * shardLen + c0, w, pad, zeros, maps);
                    }
                    for (int j = 0; j < m; j++) {
                        shards[k + j] = SharedMemory.bytes(parity, (long) j * window, w);
                    }
                    io.map(i -> {
                        ByteBuffer b = shards[i].duplicate().position(0).limit(w);
                        crcs[i].update(b.duplicate());
                        Io.writeFully(out[i], b, -1);
                        return null;
                    }, IntStream.range(0, n).boxed().toList());
                } finally {
                    maps.forEach(Mapped::unmap);
                }
                progress.advance((long) k * w);
            }
        }
    }

    /** The window {@code [pos, pos+w)} of the zero-padded input: mapped when inside the file, else padded. */
    private static ByteBuffer dataWindow(FileChannel in, long length, long pos, int w, ByteBuffer pad, ByteBuffer zeros,
                                         List<ByteBuffer> maps) throws IOException {
        if (pos + w <= length) {
            ByteBuffer b = Mapped.map(in, pos, w);
            maps.add(b);
            return b;
        }
        if (pos >= length) {
            return zeros.clear().limit(w);
        }
        // the one shard window that straddles the end of the file
        pad.clear();
        while (pad.position() < length - pos) {
            if (in.read(pad.limit((int) (length - pos)), pos + pad.position()) < 0) {
                throw new IOException("the input shrank while encoding");
            }
        }
        pad.limit(w);
        while (pad.hasRemaining()) {
            pad.put((byte) 0);
        }
        return pad.flip();
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
