package dev.sharray.cli.ec;

import dev.sharray.cli.CliException;
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
     * @param parallel runs the coding and writing
     * @return the result
     */
    public static Result encode(Path input, Path outDir, int k, int m, Matrix matrix, boolean force, Parallel parallel) {
        long t0 = System.nanoTime();
        Inputs.requireReadableFile(input);
        boolean createdDir = prepareDir(outDir, force);
        ErasureCodec codec = ErasureCodec.builder(k, m).matrix(matrix).build();
        int n = k + m;
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
            encodeBody(in, length, shardLen, codec, out, crcs, parallel);
            for (int i = 0; i < n; i++) {
                Io.writeFully(out[i], proto.withIndex(i).withBodyCrc((int) crcs[i].getValue()).toBuffer(), 0);
            }
            staged.commit();
            if (force) {
                removeStale(outDir, n);
            }
            return new Result(outDir, proto, (System.nanoTime() - t0) / 1e9);
        } catch (IOException | TaskFailedException e) {
            if (createdDir) {
                try {
                    Files.deleteIfExists(outDir);
                } catch (IOException ignored) {
                    // not empty or gone: leave it
                }
            }
            throw new CliException("cannot encode " + input + " into " + outDir + ": " + Io.reason(e), e);
        }
    }

    private static void encodeBody(FileChannel in, long length, long shardLen, ErasureCodec codec, FileChannel[] out,
                                   CRC32C[] crcs, Parallel parallel) throws IOException {
        int k = codec.dataShards();
        int n = codec.totalShards();
        int window = (int) Math.min(Windows.WINDOW, Math.max(shardLen, 1));
        ByteBuffer[] parity = new ByteBuffer[n - k];
        for (int j = 0; j < parity.length; j++) {
            parity[j] = ByteBuffer.allocateDirect(window);
        }
        ByteBuffer pad = ByteBuffer.allocateDirect(window);
        ByteBuffer zeros = ByteBuffer.allocateDirect(window);
        try (Progress progress = Progress.start("encode", k * shardLen)) {
            for (long c0 = 0; c0 < shardLen; c0 += window) {
                int w = (int) Math.min(window, shardLen - c0);
                ByteBuffer[] shards = new ByteBuffer[n];
                List<ByteBuffer> maps = new ArrayList<>();
                try {
                    for (int i = 0; i < k; i++) {
                        shards[i] = dataWindow(in, length, i * shardLen + c0, w, pad, zeros, maps);
                    }
                    for (int j = 0; j < parity.length; j++) {
                        shards[k + j] = parity[j].clear().limit(w);
                    }
                    parallel.map(part -> {
                        codec.encode(slices(shards, part));
                        return null;
                    }, Windows.split(0, w, parallel.workers()));
                    parallel.map(i -> {
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

    /** Slices {@code [part[0], part[0]+part[1])} of every shard window. */
    static ByteBuffer[] slices(ByteBuffer[] shards, long[] part) {
        ByteBuffer[] s = new ByteBuffer[shards.length];
        for (int i = 0; i < shards.length; i++) {
            s[i] = shards[i].slice((int) part[0], (int) part[1]);
        }
        return s;
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
