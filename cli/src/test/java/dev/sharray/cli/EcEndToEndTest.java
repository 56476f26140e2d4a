package dev.sharray.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sharray ec} end to end in real subprocesses: encode, damage up to m shards every way, decode, verify, repair. */
class EcEndToEndTest {
    @TempDir
    Path dir;

    static Path randomFile(Path p, long length, long seed) throws IOException {
        Random r = new Random(seed);
        byte[] buf = new byte[1 << 20];
        try (var out = Files.newOutputStream(p)) {
            for (long left = length; left > 0; left -= buf.length) {
                r.nextBytes(buf);
                out.write(buf, 0, (int) Math.min(buf.length, left));
            }
        }
        return p;
    }

    static String sha256(Path p) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        try (var in = Files.newInputStream(p)) {
            byte[] buf = new byte[1 << 20];
            int n;
            while ((n = in.read(buf)) > 0) {
                md.update(buf, 0, n);
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }

    static Path shard(Path shards, int i) {
        return shards.resolve(String.format("shard-%02d.sre", i));
    }

    static void flipBit(Path file, long pos) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(pos);
            int b = raf.read();
            raf.seek(pos);
            raf.write(b ^ 0x10);
        }
    }

    static String statusOf(String verifyOut, int shard) {
        Matcher m = Pattern.compile("(?m)^\\s*" + shard + "\\s+\\w+\\s+shard-\\d+\\.sre\\s+(\\w+)").matcher(verifyOut);
        assertTrue(m.find(), "no row for shard " + shard + " in\n" + verifyOut);
        return m.group(1);
    }

    @Test
    void oddLengthFileSurvivesEveryKindOfDamageToMShards() throws Exception {
        long length = (40L << 20) + 12345; // odd, not a multiple of k
        Path input = randomFile(dir.resolve("input.bin"), length, 42);
        String inputHash = sha256(input);
        Path shards = dir.resolve("shards");

        Cli.Result enc = Cli.run(null, "ec", "encode", input.toString(), "-k", "10", "-m", "4", "-o", shards.toString(),
            "--workers", "2");
        assertEquals(0, enc.exit(), enc::toString);
        for (int i = 0; i < 14; i++) {
            assertTrue(Files.isRegularFile(shard(shards, i)), "shard " + i);
        }
        Cli.Result ok = Cli.run(null, "ec", "verify", shards.toString());
        assertEquals(0, ok.exit(), ok::toString);
        assertTrue(ok.out().contains("14 of 14 shards intact"), ok::toString);
        assertTrue(ok.out().contains("shards 10-13 agree with what shards 0-9 give"), ok::toString);

        // another set of the same file: same geometry, another set id
        Path other = dir.resolve("other");
        assertEquals(0, Cli.run(null, "ec", "encode", input.toString(), "-o", other.toString(), "-q").exit());

        Files.delete(shard(shards, 2));                                   // missing
        try (RandomAccessFile raf = new RandomAccessFile(shard(shards, 5).toFile(), "rw")) {
            raf.setLength(raf.length() / 2);                              // truncated
        }
        flipBit(shard(shards, 9), 64 + 777_777);                          // flipped bit in the body
        byte[] foreign = Files.readAllBytes(shard(other, 12));            // header from another set
        try (RandomAccessFile raf = new RandomAccessFile(shard(shards, 12).toFile(), "rw")) {
            raf.write(foreign, 0, 64);
        }

        Cli.Result damaged = Cli.run(null, "ec", "verify", shards.toString());
        assertEquals(1, damaged.exit(), damaged::toString);
        assertEquals("missing", statusOf(damaged.out(), 2));
        assertEquals("truncated", statusOf(damaged.out(), 5));
        assertEquals("corrupted", statusOf(damaged.out(), 9));
        assertEquals("foreign", statusOf(damaged.out(), 12));
        assertEquals("intact", statusOf(damaged.out(), 0));
        assertTrue(damaged.out().contains("10 of 14 shards intact; recoverable"), damaged::toString);

        Path output = dir.resolve("output.bin");
        Cli.Result dec = Cli.run(null, "ec", "decode", shards.toString(), "-o", output.toString());
        assertEquals(0, dec.exit(), dec::toString);
        assertEquals(length, Files.size(output));
        assertEquals(inputHash, sha256(output));
        assertEquals(inputHash, sha256(input), "the input was modified");

        Cli.Result rep = Cli.run(null, "ec", "repair", shards.toString());
        assertEquals(0, rep.exit(), rep::toString);
        assertTrue(rep.out().contains("[2, 5, 9, 12]"), rep::toString);
        Cli.Result again = Cli.run(null, "ec", "verify", shards.toString());
        assertEquals(0, again.exit(), again::toString);
        for (int i = 0; i < 14; i++) {
            assertArrayEquals(bodyOf(shard(other, i)), bodyOf(shard(shards, i)), "repaired shard " + i + " differs");
        }
        Cli.Result rep2 = Cli.run(null, "ec", "repair", shards.toString());
        assertTrue(rep2.out().contains("nothing to repair"), rep2::toString);

        // damage four data shards (all erasures in data), including a flipped header bit, and decode again
        Files.delete(shard(shards, 0));
        flipBit(shard(shards, 1), 20);
        Files.writeString(shard(shards, 3), "not a shard");
        Files.copy(shard(shards, 4), shard(shards, 6), StandardCopyOption.REPLACE_EXISTING); // wrong index
        Cli.Result v2 = Cli.run(null, "ec", "verify", shards.toString());
        assertEquals("corrupted", statusOf(v2.out(), 1));
        assertEquals("corrupted", statusOf(v2.out(), 3));
        assertEquals("corrupted", statusOf(v2.out(), 6));
        Path output2 = dir.resolve("output2.bin");
        Cli.Result dec2 = Cli.run(null, "ec", "decode", shards.toString(), "-o", output2.toString(), "-q");
        assertEquals(0, dec2.exit(), dec2::toString);
        assertEquals("", dec2.err(), "--quiet prints nothing on success");
        assertEquals(inputHash, sha256(output2));
    }

    private static byte[] bodyOf(Path shard) throws IOException {
        byte[] all = Files.readAllBytes(shard);
        return java.util.Arrays.copyOfRange(all, 64, all.length);
    }

    @Test
    void twoHundredMiBRoundTripThroughTheWorkerPool() throws Exception {
        long length = (200L << 20) + 4099;
        Path input = randomFile(dir.resolve("big.bin"), length, 200);
        String hash = sha256(input);
        Path shards = dir.resolve("big.shards");
        Cli.Result enc = Cli.run(null, "ec", "encode", input.toString(), "-o", shards.toString(), "--workers", "2");
        assertEquals(0, enc.exit(), enc::toString);
        Files.delete(shard(shards, 0));
        Files.delete(shard(shards, 7));
        flipBit(shard(shards, 10), 64 + (100L << 20));
        try (RandomAccessFile raf = new RandomAccessFile(shard(shards, 13).toFile(), "rw")) {
            raf.setLength(1000);
        }
        Path out = dir.resolve("big.out");
        Cli.Result dec = Cli.run(null, "ec", "decode", shards.toString(), "-o", out.toString(), "--workers", "2");
        assertEquals(0, dec.exit(), dec::toString);
        assertEquals(hash, sha256(out));
    }

    @Test
    void smallAndEmptyFilesAndOtherGeometries() throws Exception {
        for (long len : new long[] {0, 1, 3, 1_000_003}) {
            Path input = randomFile(dir.resolve("in-" + len), len, len);
            Path shards = dir.resolve("s-" + len);
            Cli.Result enc = Cli.runThreads(null, "ec", "encode", input.toString(), "-k", "4", "-m", "2", "--matrix", "cauchy",
                "-o", shards.toString(), "-q");
            assertEquals(0, enc.exit(), enc::toString);
            Files.delete(shard(shards, 1));
            if (len > 0) {
                flipBit(shard(shards, 5), 64);
            }
            Path out = dir.resolve("out-" + len);
            Cli.Result dec = Cli.runThreads(null, "ec", "decode", shards.toString(), "-o", out.toString());
            assertEquals(0, dec.exit(), dec::toString);
            assertArrayEquals(Files.readAllBytes(input), Files.readAllBytes(out), "length " + len);
        }
    }

    @Test
    @org.junit.jupiter.api.Timeout(180)
    void anEncodeStoppedBySigtermLeavesNoPartialFiles() throws Exception {
        Path out = Files.createDirectory(dir.resolve("stopped.shards")); // there before: kept
        stopWhileStaging(out);
        assertEquals(0, partials(out), "the shutdown hook removed the partial shard files");
    }

    @Test
    @org.junit.jupiter.api.Timeout(180)
    void anEncodeStoppedBySigtermRemovesTheFoldersItCreated() throws Exception {
        Path out = dir.resolve("nd").resolve("sub");
        stopWhileStaging(out);
        // before, the shutdown hook deleted the partial files but left nd/sub behind, empty
        assertFalse(Files.exists(dir.resolve("nd")), "the folders the encode created are removed");
    }

    /**
     * kill -9 runs no shutdown hook: the partial shard files of the killed encode stay. The next run that writes the
     * same targets removes them (their pid names no live process); before, they stayed for good, hidden, as large as
     * the shards.
     */
    @Test
    @org.junit.jupiter.api.Timeout(180)
    void thePartialFilesOfAnEncodeKilledWithSigkillGoWithTheNextRun() throws Exception {
        Path out = dir.resolve("killed.shards");
        stopWhileStaging(out, true);
        assertTrue(partials(out) > 0, "kill -9 left the partial files");
        Path small = randomFile(dir.resolve("small.bin"), 100_000, 5);
        Cli.Result enc = Cli.runThreads(null, "ec", "encode", small.toString(), "-o", out.toString(), "-q");
        assertEquals(0, enc.exit(), enc::toString);
        assertEquals(0, partials(out), "the dead run's partial files are removed");
        Cli.Result dec = Cli.runThreads(null, "ec", "decode", out.toString(), "-o", dir.resolve("small.out").toString());
        assertEquals(0, dec.exit(), dec::toString);
        assertEquals(sha256(small), sha256(dir.resolve("small.out")));
    }

    private void stopWhileStaging(Path out) throws Exception {
        stopWhileStaging(out, false);
    }

    /** Starts an encode into {@code out} and sends it SIGTERM (or SIGKILL) once it is writing its partial shard files. */
    private void stopWhileStaging(Path out, boolean kill) throws Exception {
        Path input = dir.resolve("stopped.bin");
        try (RandomAccessFile f = new RandomAccessFile(input.toFile(), "rw")) {
            f.setLength(600L << 20); // zeros: cheap to make, long enough to stop it mid-way
        }
        Process p = Cli.start(dir, dir.resolve("stopped.log"), "ec", "encode", input.toString(), "-o", out.toString());
        boolean staging = false;
        for (int i = 0; i < 6000 && !staging && p.isAlive(); i++) {
            staging = Files.isDirectory(out) && partials(out) > 0;
            if (!staging) {
                Thread.sleep(5);
            }
        }
        assertTrue(staging, "the encode was staging its outputs");
        if (kill) {
            p.destroyForcibly(); // SIGKILL
            assertEquals(137, p.waitFor(), "killed mid-run (a finished encode would exit 0)");
            return;
        }
        p.destroy(); // SIGTERM, as Ctrl-C or a service manager sends
        assertEquals(143, p.waitFor(), "stopped by the signal mid-run (a finished encode would exit 0)");
    }

    private static long partials(Path dir) throws IOException {
        try (var files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().contains(".partial-")).count();
        }
    }
}
