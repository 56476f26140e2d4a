package dev.sharray.cli.ec;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import dev.sharray.cli.CliException;
import dev.sharray.cli.ErrorMessages;
import dev.sharray.cli.SharedMemory;
import dev.sharray.cli.Parallel;
import dev.sharray.cli.TaskFailedException;
import dev.sharray.cli.Progress;
import dev.sharray.cli.Ui;
import dev.sharray.codec.Crc32c;
import dev.sharray.codec.ErasureCodec;
import dev.sharray.codec.Matrix;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;

/**
 * Encodes a file into k + m shard files. The whole file is one stripe: data shard i holds bytes
 * {@code [i*L, (i+1)*L)} of the zero-padded file, {@code L = ceil(length/k)}. The data shards are written
 * from the input by kernel copy on a writer thread of their own, from the start. The input is mapped read-only
 * window by window (never copied into the heap); each window's parity and every shard's checksum are
 * computed in parallel, then the parity is appended to its files. Memory stays flat in the file size: m
 * parity windows, double-buffered.
 */
public final class FileEncoder {
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
        Inputs.requireNotReplacedBy(input, outDir);
        ErasureCodec.builder(k, m).matrix(matrix); // validates k and m before anything is written
        List<Path> createdDirs = prepareDir(outDir, force);
        // the input is valid: worker start-up (~0.3 s) now overlaps staging the outputs and copying the data
        compute.startEarly(worker -> WindowCoder.warmUp(k, m, matrix));
        int n = k + m;
        boolean done = false;
        try (FileChannel in = FileChannel.open(input, StandardOpenOption.READ); StagedFiles staged = new StagedFiles(() -> removeCreated(createdDirs))) {
            InputState opened = InputState.of(input); // compared again before the commit
            long length = in.size();
            if (length == 0 && in.read(ByteBuffer.allocate(1), 0) > 0) {
                // /proc and /sys files report size 0 and yet hold bytes: encoding would keep none of them
                throw new CliException("cannot encode " + input + ": it reports a size of 0 but has content (a /proc "
                    + "or /sys pseudo-file?); copy it to a regular file and encode that");
            }
            long shardLen = ShardHeader.shardLengthOf(length, k);
            long setId = ThreadLocalRandom.current().nextLong(); // tells sets apart; not a secret
            ShardHeader proto = new ShardHeader(ShardHeader.VERSION, k, m, matrix, 0, shardLen, length, setId, 0);
            FileChannel[] out = new FileChannel[n];
            for (int i = 0; i < n; i++) {
                out[i] = staged.create(ShardFiles.shard(outDir, i));
                out[i].position(ShardHeader.SIZE);
            }
            int[] crcs = new int[n];
            int window = Windows.columns(m, shardLen); // m parity rows, double-buffered
            AtomicBoolean stop = new AtomicBoolean();
            // declared before the data copy: closed after it, so the bar's last line comes after every write
            try (Progress progress = Progress.start("encode", n * shardLen);
                 WriteBehind dataCopy = new WriteBehind()) {
                try {
                    FileChannel[] dataOut = Arrays.copyOf(out, k);
                    dataCopy.submit(() -> copyData(in, length, shardLen, window, dataOut, stop, progress));
                    encodeParity(input, length, shardLen, window, k, m, matrix, Arrays.copyOfRange(out, k, n), crcs,
                        compute, io, dataCopy, progress);
                    dataCopy.await();
                } finally {
                    stop.set(true); // on failure the copy ends after its current window (close() waits for it)
                }
            }
            requireUnchanged(input, opened, length);
            for (int i = 0; i < n; i++) {
                Io.writeFully(out[i], proto.withIndex(i).withBodyCrc(crcs[i]).toBuffer(), 0);
            }
            List<ShardHeader> replaced = force ? headersOf(outDir, n) : List.of(); // read before the commit replaces them
            staged.commit();
            done = true;
            if (force) {
                removeStale(outDir, n, replaced);
            }
            return new Result(outDir, proto, (System.nanoTime() - t0) / 1e9);
        } catch (IOException | TaskFailedException e) {
            throw new CliException("cannot encode " + input + " into " + outDir + ": " + ErrorMessages.reason(e), e);
        } finally {
            if (!done) {
                removeCreated(createdDirs);
            }
        }
    }

    /**
     * The data shards were copied by the kernel and the parity and checksums computed from the workers' own
     * mappings, each reading the input when it got there: an input that grew, or was written to, meanwhile gives a
     * set of no one version of it (its first {@code length} bytes only, or a data shard whose checksum is of other
     * bytes than it holds). Such a set is never committed: the staged shards are removed with the failure.
     *
     * @throws IOException "the input changed while encoding" (with what changed), or when it cannot be read
     */
    private static void requireUnchanged(Path input, InputState opened, long length) throws IOException {
        InputState now;
        try {
            now = InputState.of(input);
        } catch (NoSuchFileException e) {
            throw new IOException("the input changed while encoding (it was removed); nothing was written", e);
        }
        String change = opened.changeTo(now);
        if (change == null && now.size() != length) {
            change = "it is " + now.size() + " bytes, " + length + " when it was opened";
        }
        if (change != null) {
            throw new IOException("the input changed while encoding (" + change + "); nothing was written: encode it "
                + "again once it is no longer being written");
        }
    }

    /**
     * Window by window: the workers code window N+1 (reading the data from the input file, and checksumming
     * every shard's part) while threads here write the parity of window N from the shared window. Stops
     * at the first window after the data copy failed.
     */
    private static void encodeParity(Path input, long length, long shardLen, int window, int k, int m, Matrix matrix,
                                     FileChannel[] parityOut, int[] crcs, Parallel compute, Parallel io,
                                     WriteBehind dataCopy, Progress progress) throws IOException {
        int n = k + m;
        EncodeJob job = new EncodeJob(input.toAbsolutePath().toString(), length, shardLen, k, m, matrix, window);
        try (SharedArray parity = SharedArray.create(DType.UINT8, 2L * m, window);
             WriteBehind writer = new WriteBehind()) {
            long computeNanos = 0;
            long firstNanos = 0;
            long waitNanos = 0;
            int buffer = 0;
            for (long c0 = 0; c0 < shardLen; c0 += window) {
                dataCopy.failIfDone(); // a failed data copy (a full disk) stops the coding too
                final int w = (int) Math.min(window, shardLen - c0);
                final int row0 = buffer * m;
                List<WindowPart> parts = Windows.split(c0, w, compute.workers()).stream()
                    .map(p -> new WindowPart(job, parity, p[0], p[1], (int) p[2], row0)).toList();
                long tc = System.nanoTime();
                List<int[]> partCrcs = compute.map(WindowCoder::encode, parts);
                long tw = System.nanoTime();
                computeNanos += tw - tc;
                firstNanos = c0 == 0 ? tw - tc : firstNanos;
                writer.await();
                waitNanos += System.nanoTime() - tw;
                for (int p = 0; p < parts.size(); p++) {
                    for (int i = 0; i < n; i++) {
                        crcs[i] = Crc32c.combine(crcs[i], partCrcs.get(p)[i], parts.get(p).length());
                    }
                }
                writer.submit(() -> {
                    io.map(j -> {
                        Io.writeFully(parityOut[j], SharedMemory.bytes(parity, (long) (row0 + j) * window, w), -1);
                        return null;
                    }, IntStream.range(0, m).boxed().toList());
                    progress.advance((long) m * w);
                    return null;
                });
                buffer ^= 1;
            }
            long tw = System.nanoTime();
            writer.await();
            waitNanos += System.nanoTime() - tw;
            if (Ui.verbose()) {
                Ui.info(String.format("encode: %.3f s coding on %s (%.3f s of it the first window, with the"
                    + " start-up), %.3f s waiting for parity writes", computeNanos / 1e9, compute.describe(),
                    firstNanos / 1e9, waitNanos / 1e9));
            }
        }
    }

    /**
     * Writes the data shard bodies straight from the input by kernel copy: they need no coding, so this runs
     * from the start, while the workers are still starting. Window by window across the k shards, the order
     * the workers read the input in, so the pages one side reads are still cached for the other.
     */
    private static Void copyData(FileChannel in, long length, long shardLen, int window, FileChannel[] out,
                                 AtomicBoolean stop, Progress progress) throws IOException {
        for (long c0 = 0; c0 < shardLen && !stop.get(); c0 += window) {
            int w = (int) Math.min(window, shardLen - c0);
            for (int i = 0; i < out.length; i++) {
                long pos = i * shardLen + c0;
                long avail = Math.max(0, Math.min(w, length - pos));
                Io.transferFully(in, pos, avail, out[i], "the input");
                Io.writeZeros(out[i], w - avail); // the zero padding of the last data shards
            }
            progress.advance((long) out.length * w);
        }
        return null;
    }

    /**
     * Checks the output directory and creates it (with its missing parents) if needed.
     *
     * @return the directories this call created, outermost first; empty when {@code dir} existed
     */
    private static List<Path> prepareDir(Path dir, boolean force) {
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new CliException("output is not a directory: " + dir);
        }
        if (Files.isDirectory(dir)) {
            if (!force && hasShards(dir)) {
                throw new CliException("output directory already holds shard files: " + dir + " (use --force to replace them)");
            }
            return List.of();
        }
        // createDirectories makes every missing parent too: remember them all, so a failure removes them all
        List<Path> missing = new ArrayList<>();
        for (Path p = dir.toAbsolutePath(); p != null && !Files.exists(p); p = p.getParent()) {
            if (Files.isSymbolicLink(p)) {
                // a link to nothing: no directory can be made in its place, and it is not ours to remove
                throw new CliException("cannot create output directory " + dir + ": " + p
                    + " is a symbolic link to a missing " + linkTarget(p));
            }
            missing.add(0, p);
        }
        try {
            Files.createDirectories(dir);
            return missing;
        } catch (IOException e) {
            removeCreated(missing); // it may have made some parents before failing
            throw new CliException("cannot create output directory " + dir + ": " + ErrorMessages.reason(e), e);
        }
    }

    private static String linkTarget(Path link) {
        try {
            return Files.readSymbolicLink(link).toString();
        } catch (IOException e) {
            return "target";
        }
    }

    /**
     * After a failure, or when the JVM is stopped (a SIGTERM): removes the directories {@link #prepareDir} created,
     * innermost first, while they are empty.
     */
    private static void removeCreated(List<Path> created) {
        for (int i = created.size() - 1; i >= 0; i--) {
            try {
                Files.deleteIfExists(created.get(i));
            } catch (IOException e) {
                return; // not empty (something else was put there): leave it and its parents
            }
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
            throw new CliException("cannot read output directory " + dir + ": " + ErrorMessages.reason(e), e);
        }
    }

    /**
     * @return the valid headers of the shard files {@code shard-00.sre .. shard-(n-1).sre} of {@code dir} about to be
     *         replaced: the set(s) a forced re-encode replaces, whose shards beyond the new set it then removes
     */
    private static List<ShardHeader> headersOf(Path dir, int n) {
        List<ShardHeader> headers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            try {
                ShardHeader h = ShardHeader.parse(ShardSet.readHeader(ShardFiles.shard(dir, i)));
                if (h.index() == i) {
                    headers.add(h);
                }
            } catch (IOException | BadShardException e) {
                // missing or no shard of a set: nothing to tell its set by
            }
        }
        return headers;
    }

    /**
     * After a forced re-encode with fewer shards, old shard files beyond the new set would confuse decoding. Only
     * those of a set the re-encode replaced are removed: a file under its shard's canonical name whose header is
     * valid, says that index and belongs to a set one of the replaced files belonged to. Anything else under a
     * shard name (a note called shard-99.sre, a copy under shard-007.sre, another set's shard, a directory) is
     * someone's data: it is left in place, with a warning. The new set is already in place: what cannot be removed
     * is reported, never a failure.
     */
    private static void removeStale(Path dir, int n, List<ShardHeader> replaced) {
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                var m = ShardFiles.NAME.matcher(p.getFileName().toString());
                if (!m.matches() || Integer.parseInt(m.group(1)) < n) {
                    continue;
                }
                String keep = whyNotStale(p, Integer.parseInt(m.group(1)), replaced);
                if (keep != null) {
                    Ui.info("warning: left " + p + " in place: " + keep);
                    continue;
                }
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    Ui.info("warning: could not remove old shard file " + p + ": " + ErrorMessages.reason(e));
                }
            }
        } catch (IOException | DirectoryIteratorException e) {
            Ui.info("warning: could not look for old shard files in " + dir + ": " + ErrorMessages.reason(e));
        }
    }

    /** @return why {@code file}, named like shard {@code index}, is no shard of a replaced set; null when it is one */
    private static String whyNotStale(Path file, int index, List<ShardHeader> replaced) {
        if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
            return "a directory, not a shard file of the old set";
        }
        Path canonical = ShardFiles.shard(file.getParent(), index);
        if (!file.getFileName().equals(canonical.getFileName())) {
            return "not a shard file of the old set (shard " + index + " is named " + canonical.getFileName() + ")";
        }
        ShardHeader h;
        try {
            h = ShardHeader.parse(ShardSet.readHeader(file));
        } catch (BadShardException e) {
            return "not a shard file of the old set (" + e.getMessage() + ")";
        } catch (IOException e) {
            return "could not read its header to tell whether it is a shard of the old set (" + ErrorMessages.reason(e) + ")";
        }
        if (h.index() != index) {
            return "not a shard file of the old set (its header says shard " + h.index() + ")";
        }
        if (replaced.stream().noneMatch(h::sameSet)) {
            return String.format("a shard of another set (id %016x) than the one replaced", h.setId());
        }
        return null;
    }
}
