package dev.sharray.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every bad input gives one clear line on stderr, a non-zero exit, no stack trace, and leaves the input alone. */
class BadInputTest {
    @TempDir
    Path dir;
    Path input;
    String inputHash;

    @BeforeEach
    void setUp() throws Exception {
        input = EcEndToEndTest.randomFile(dir.resolve("input.bin"), (2L << 20) + 7, 7);
        inputHash = EcEndToEndTest.sha256(input);
    }

    /** Asserts a clean failure: the exit code, exactly one stderr line containing {@code text}, no stack trace. */
    static void assertFails(Cli.Result r, int exit, String text) {
        assertEquals(exit, r.exit(), r::toString);
        List<String> lines = r.errLines();
        assertTrue(lines.get(0).startsWith("sharray: "), r::toString);
        assertTrue(lines.get(0).contains(text), () -> "expected '" + text + "' in\n" + r);
        assertFalse(r.err().contains("\tat ") || r.err().contains("Exception"), () -> "stack trace without --verbose\n" + r);
        assertTrue(lines.size() <= (exit == Main.USAGE ? 2 : 1), () -> "more than one line\n" + r);
    }

    private Path encode(String name) throws Exception {
        Path shards = dir.resolve(name);
        Cli.Result r = Cli.runThreads(null, "ec", "encode", input.toString(), "-o", shards.toString(), "-q");
        assertEquals(0, r.exit(), r::toString);
        return shards;
    }

    /** @return the folder of {@code in} encoded as RS(k, m) */
    private Path encode(Path in, int k, int m, String name) throws Exception {
        final Path shards = dir.resolve(name);
        final Cli.Result r = Cli.runThreads(null, "ec", "encode", in.toString(), "-k", String.valueOf(k), "-m",
            String.valueOf(m), "-o", shards.toString(), "-q");
        assertEquals(0, r.exit(), r::toString);
        return shards;
    }

    /** Copies shards {@code indexes} of folder {@code from} into {@code to}. */
    private static void copyShards(Path from, Path to, int... indexes) throws Exception {
        for (int i : indexes) {
            Files.copy(EcEndToEndTest.shard(from, i), EcEndToEndTest.shard(to, i));
        }
    }

    @Test
    void missingFileDirectoryAndUsageErrors() throws Exception {
        assertFails(Cli.runThreads(null, "ec", "encode", dir.resolve("nope").toString()), 1, "no such file");
        assertFails(Cli.runThreads(null, "ec", "encode", dir.toString()), 1, "is a directory");
        assertFails(Cli.runThreads(null, "ec", "encode", input.toString(), "-k", "0"), 2, "k >= 1");
        assertFails(Cli.runThreads(null, "ec", "encode", input.toString(), "-m", "0"), 2, "m >= 1");
        assertFails(Cli.runThreads(null, "ec", "encode", input.toString(), "-k", "200", "-m", "57"), 2, "k + m <= 256");
        assertFails(Cli.runThreads(null, "ec", "encode", input.toString(), "-k", "ten"), 2, "-k");
        // k + m overflows int: a usage error like any other k + m > 256, and no shard directory is made
        Path huge = dir.resolve("huge");
        assertFails(Cli.runThreads(null, "ec", "encode", input.toString(), "-k", "2147483647", "-m", "1", "-o",
            huge.toString()), 2, "k + m <= 256");
        assertFails(Cli.runThreads(null, "ec", "encode", input.toString(), "-k", "1073741824", "-m", "1073741824", "-o",
            huge.toString()), 2, "k + m <= 256");
        assertFalse(Files.exists(huge), "nothing is written for a rejected k and m");
        // a pseudo-file reports size 0 but has content: before, it "encoded" into an empty set (exit 0)
        Path pseudo = dir.resolve("pseudo");
        assertFails(Cli.runThreads(null, "ec", "encode", "/proc/self/status", "-o", pseudo.toString()), 1,
            "reports a size of 0 but has content");
        assertFalse(Files.exists(pseudo), "no shard directory is left for a refused input");
        assertFails(Cli.runThreads(null, "ec", "encode"), 2, "FILE");
        assertFails(Cli.runThreads(null, "ec", "frobnicate"), 2, "frobnicate");
        assertFails(Cli.runThreads(null, "demo", "--size", "lots"), 2, "not a size");
        // a size that parses but is too small is a bad option value too: it exited 1 without the --help hint
        for (String tooSmall : List.of("0", "1023")) {
            Cli.Result r = Cli.runThreads(null, "demo", "-s", tooSmall);
            assertFails(r, 2, "--size must be at least 1K, got " + tooSmall);
            assertEquals("Try 'sharray demo --help' for more information.", r.errLines().get(1), r::toString);
        }
        assertFails(Cli.runThreads(null, "ec", "decode", dir.resolve("nope").toString(), "-o", dir.resolve("o").toString()), 1,
            "no such directory");
        assertFails(Cli.runThreads(null, "ec", "verify", input.toString()), 1, "not a directory");
        assertFails(Cli.runThreads(null, "ec", "verify", dir.toString()), 1, "no shard files");
        assertEquals(0, Cli.runThreads(null, "ec", "encode", input.toString(), "-k", "255", "-m", "1", "-o",
            dir.resolve("wide").toString(), "-q").exit());
        assertEquals(inputHash, EcEndToEndTest.sha256(input));
    }

    @Test
    void anEmptyPathIsAUsageErrorNotTheCurrentDirectory() throws Exception {
        Path shards = encode("shards");
        // the working directory holds a copy of the set: verify "" and decode "" read it before, encode -o "" --force
        // replaced it
        Path sub = Files.createDirectory(dir.resolve("cwd"));
        for (int i = 0; i < 14; i++) {
            Files.copy(EcEndToEndTest.shard(shards, i), EcEndToEndTest.shard(sub, i));
        }
        List<String> before = names(sub);
        String shard0 = EcEndToEndTest.sha256(EcEndToEndTest.shard(sub, 0));
        String out = dir.resolve("out.bin").toString();
        String in = input.toString();
        String sd = shards.toString();
        // before: encode -o "" wrote shard files into the working directory, verify "" verified it, ...
        for (String[] args : List.of(
                new String[] {"ec", "encode", in, "-o", ""}, new String[] {"ec", "encode", in, "--output", " "},
                new String[] {"ec", "encode", in, "-o", "", "--force"}, new String[] {"ec", "encode", ""},
                new String[] {"ec", "verify", ""}, new String[] {"ec", "repair", ""},
                new String[] {"ec", "decode", "", "-o", out}, new String[] {"ec", "decode", sd, "-o", "", "--force"},
                new String[] {"ec", "decode", sd, "--output=", "--force"})) {
            Cli.Result r = Cli.runThreadsIn(sub, null, args);
            assertFails(r, 2, "a path must not be empty");
            assertTrue(r.errLines().get(0).startsWith("sharray: Invalid value for "), r::toString);
        }
        assertEquals(before, names(sub), "nothing was written in the working directory");
        assertEquals(shard0, EcEndToEndTest.sha256(EcEndToEndTest.shard(sub, 0)));
        assertFalse(Files.exists(Path.of(out)));
    }

    @Test
    void anIoFailureSaysWhyNotJustWhichPath() throws Exception {
        Path shards = encode("shards");
        // before, these ended in the path again: "cannot write /sys/out.bin: /sys/.out.bin.partial-24337" and
        // "cannot create output directory /proc/self/foo: /proc/self/foo" (the JDK's message for these is the path)
        Cli.Result sys = Cli.runThreads(null, "ec", "decode", shards.toString(), "-o", "/sys/out.bin");
        assertFails(sys, 1, "cannot write /sys/out.bin: ");
        assertTrue(sys.errLines().get(0).matches("sharray: cannot write /sys/out\\.bin: (permission denied|Read-only file system)"),
            sys::toString);
        assertFails(Cli.runThreads(null, "ec", "encode", input.toString(), "-o", "/proc/self/foo"), 1,
            "cannot create output directory /proc/self/foo: no such file or directory");
        // the output's folder is a regular file: it said "no such directory"
        assertFails(Cli.runThreads(null, "ec", "decode", shards.toString(), "-o", input.resolve("out").toString()), 1,
            "not a directory: " + input);
        assertEquals(inputHash, EcEndToEndTest.sha256(input));
    }

    @Test
    void anOutputThatIsALinkToNothingIsRefusedAndLeftInPlace() throws Exception {
        // a link to a drive that is not mounted: before, the failed create deleted the user's link
        Path link = Files.createSymbolicLink(dir.resolve("backups"), dir.resolve("unmounted").resolve("backups"));
        for (Path out : List.of(link, link.resolve("shards"))) {
            assertFails(Cli.runThreads(null, "ec", "encode", input.toString(), "-o", out.toString()), 1,
                "cannot create output directory " + out + ": " + link + " is a symbolic link to a missing "
                    + dir.resolve("unmounted").resolve("backups"));
            assertTrue(Files.isSymbolicLink(link), "the link is left in place");
        }
        // the default output, FILE.shards, too
        Path defaultLink = Files.createSymbolicLink(dir.resolve("input.bin.shards"), dir.resolve("gone"));
        assertFails(Cli.runThreads(null, "ec", "encode", input.toString()), 1, defaultLink + " is a symbolic link");
        assertTrue(Files.isSymbolicLink(defaultLink), "the link is left in place");
        assertEquals(inputHash, EcEndToEndTest.sha256(input));
    }

    @Test
    void aTempFolderThatIsAFileIsNamedWithWhatWasTried() throws Exception {
        // before: "sharray: already exists: <file>", without saying that sharray's temp folder was meant. The
        // helper makes it java.io.tmpdir too, which JDK 25 warns of on a line of its own first
        Cli.Result r = Cli.runThreads(input, "ec", "encode", input.toString(), "-o", dir.resolve("shards").toString());
        assertEquals(1, r.exit(), r::toString);
        assertTrue(r.errLines().contains("sharray: cannot create the sharray folder under " + input + ": " + input
            + " exists and is not a directory"), r::toString);
        assertFalse(r.err().contains("\tat "), r::toString);
        assertFalse(Files.exists(dir.resolve("shards")));
        assertEquals(inputHash, EcEndToEndTest.sha256(input));
    }

    @Test
    void verboseShowsTheStackTrace() throws Exception {
        Cli.Result r = Cli.runThreads(null, "--verbose", "ec", "encode", dir.resolve("nope").toString());
        assertEquals(1, r.exit());
        assertTrue(r.err().contains("\tat "), r::toString);
        Cli.Result r2 = Cli.runThreads(null, "ec", "encode", dir.resolve("nope").toString(), "-v");
        assertTrue(r2.err().contains("\tat "), r2::toString);
    }

    @Test
    void anExistingEmptyOutputDirectoryNeedsNoForce() throws Exception {
        Path empty = Files.createDirectory(dir.resolve("empty"));
        Cli.Result r = Cli.runThreads(null, "ec", "encode", input.toString(), "-o", empty.toString(), "-k", "4", "-m", "2", "-q");
        assertEquals(0, r.exit(), r::toString);
        assertEquals(0, Cli.runThreads(null, "ec", "verify", empty.toString()).exit());
    }

    @Test
    void aShardWithBytesAppendedIsNotIntact() throws Exception {
        Path shards = encode("shards");
        Files.write(EcEndToEndTest.shard(shards, 2), new byte[] {1}, java.nio.file.StandardOpenOption.APPEND);
        Cli.Result v = Cli.runThreads(null, "ec", "verify", shards.toString());
        assertTrue(v.out().contains("13 of 14 shards intact"), v::toString);
    }

    @Test
    void aForcedReEncodeKeepsAnOldShardFiledUnderAnotherIndex() throws Exception {
        Path shards = encode("shards"); // RS(10,4): shard-00 .. shard-13
        Path misfiled = EcEndToEndTest.shard(shards, 9);
        Files.copy(EcEndToEndTest.shard(shards, 3), misfiled, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        String hash = EcEndToEndTest.sha256(misfiled);
        Cli.Result r = Cli.runThreads(null, "ec", "encode", input.toString(), "-o", shards.toString(), "-k", "4", "-m", "2",
            "--force");
        assertEquals(0, r.exit(), r::toString);
        assertTrue(r.err().contains("left " + misfiled + " in place: not a shard file of the old set (its header says shard 3)"),
            r::toString);
        assertEquals(hash, EcEndToEndTest.sha256(misfiled));
    }

    @Test
    void outputExistsWithoutForce() throws Exception {
        Path shards = encode("shards");
        long before = Files.getLastModifiedTime(EcEndToEndTest.shard(shards, 0)).toMillis();
        assertFails(Cli.runThreads(null, "ec", "encode", input.toString(), "-o", shards.toString()), 1, "--force");
        assertEquals(before, Files.getLastModifiedTime(EcEndToEndTest.shard(shards, 0)).toMillis());
        assertEquals(0, Cli.runThreads(null, "ec", "encode", input.toString(), "-o", shards.toString(), "--force", "-q").exit());

        Path out = dir.resolve("out.bin");
        Files.writeString(out, "keep me");
        assertFails(Cli.runThreads(null, "ec", "decode", shards.toString(), "-o", out.toString()), 1, "output exists");
        assertEquals("keep me", Files.readString(out));
        assertFails(Cli.runThreads(null, "ec", "decode", shards.toString(), "-o", dir.toString()), 1, "is a directory");
        assertEquals(0, Cli.runThreads(null, "ec", "decode", shards.toString(), "-o", out.toString(), "--force").exit());
        assertEquals(inputHash, EcEndToEndTest.sha256(out));
        // --force never lets an output replace an input shard, nor an encode overwrite its own input
        Path shard3 = EcEndToEndTest.shard(shards, 3);
        String shard3Hash = EcEndToEndTest.sha256(shard3);
        assertFails(Cli.runThreads(null, "ec", "decode", shards.toString(), "-o", shard3.toString(), "--force"), 1,
            "is a shard file");
        assertFails(Cli.runThreads(null, "ec", "encode", shard3.toString(), "-o", shards.toString(), "--force"), 1,
            "is a shard file");
        assertEquals(shard3Hash, EcEndToEndTest.sha256(shard3));
        Path notDir = dir.resolve("file-not-dir");
        Files.writeString(notDir, "x");
        assertFails(Cli.runThreads(null, "ec", "encode", input.toString(), "-o", notDir.toString()), 1, "not a directory");
    }

    @Test
    void forceNeverReplacesOrRemovesAnInputReachedThroughALink() throws Exception {
        // encode: the input is a link to a shard-named file in the output folder. Before, --force removed
        // od/shard-20.sre as a stale shard, and renamed shard 3 of the new set over od/shard-03.sre.
        Path od = Files.createDirectory(dir.resolve("od"));
        for (String name : List.of("shard-20.sre", "shard-03.sre")) {
            Path real = Files.copy(input, od.resolve(name));
            Path link = Files.createSymbolicLink(dir.resolve("link-" + name), Path.of("od", name));
            assertFails(Cli.runThreads(null, "ec", "encode", link.toString(), "-o", od.toString(), "-k", "4", "-m", "2",
                "--force"), 1, "is a shard file of " + od + " (" + real + ")");
            assertEquals(inputHash, EcEndToEndTest.sha256(real), name + " was replaced or removed");
            Files.delete(real);
        }
        // the other way round is safe: a link in the output folder is replaced, not what it points to
        Files.createSymbolicLink(od.resolve("shard-03.sre"), input);
        assertEquals(0, Cli.runThreads(null, "ec", "encode", input.toString(), "-o", od.toString(), "-k", "4", "-m", "2",
            "--force", "-q").exit());
        assertFalse(Files.isSymbolicLink(od.resolve("shard-03.sre")));
        assertEquals(inputHash, EcEndToEndTest.sha256(input));

        // decode: a shard is a link to the output. Before, --force renamed the decoded file over shard 2's data.
        Path shard2 = EcEndToEndTest.shard(od, 2);
        Path s2real = Files.move(shard2, dir.resolve("s2real"));
        Files.createSymbolicLink(shard2, Path.of("..", "s2real"));
        String s2Hash = EcEndToEndTest.sha256(s2real);
        assertFails(Cli.runThreads(null, "ec", "decode", od.toString(), "-o", s2real.toString(), "--force"), 1,
            "output " + s2real + " is a shard file of " + od + " (" + shard2 + " links to it)");
        assertEquals(s2Hash, EcEndToEndTest.sha256(s2real));

        // repair: a damaged shard's file is what an intact shard links to (shard 1 renamed to shard-05.sre and
        // linked back). Before, repair rewrote shard-05.sre and so destroyed intact shard 1.
        Path shard1 = EcEndToEndTest.shard(od, 1);
        Path shard5 = EcEndToEndTest.shard(od, 5);
        Files.move(shard1, shard5, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.createSymbolicLink(shard1, shard5.getFileName());
        String s1Hash = EcEndToEndTest.sha256(shard1);
        assertFails(Cli.runThreads(null, "ec", "repair", od.toString()), 1,
            shard5 + " is the file intact shard 1 (" + shard1 + ") links to");
        assertEquals(s1Hash, EcEndToEndTest.sha256(shard5));
        Path out = dir.resolve("out.bin");
        assertEquals(0, Cli.runThreads(null, "ec", "decode", od.toString(), "-o", out.toString(), "-q").exit());
        assertEquals(inputHash, EcEndToEndTest.sha256(out));
    }

    @Test
    void aForcedReEncodeLeavesADirectoryNamedLikeAnOldShardAndSucceeds() throws Exception {
        Path shards = encode("shards"); // RS(10,4): shard-00 .. shard-13
        Path dirShard = Files.createDirectories(shards.resolve("shard-20.sre"));
        Files.writeString(dirShard.resolve("x"), "user data");
        // before: the old shards were removed after the new set was committed, and the directory made the
        // command fail ("cannot encode ...: .../shard-20.sre", exit 1) with the new set already in place
        Cli.Result r = Cli.runThreads(null, "ec", "encode", input.toString(), "-o", shards.toString(), "-k", "4", "-m", "2",
            "--force");
        assertEquals(0, r.exit(), r::toString);
        assertTrue(r.err().contains("sharray: warning: left " + dirShard + " in place: a directory"), r::toString);
        assertEquals("user data", Files.readString(dirShard.resolve("x")));
        assertEquals(List.of(".", "shard-00.sre", "shard-01.sre", "shard-02.sre", "shard-03.sre", "shard-04.sre",
            "shard-05.sre", "shard-20.sre"), names(shards), "the old set's shards 6 to 13 are removed");
        Path out = dir.resolve("out.bin");
        assertEquals(0, Cli.runThreads(null, "ec", "decode", shards.toString(), "-o", out.toString(), "-q").exit());
        assertEquals(inputHash, EcEndToEndTest.sha256(out));
        Cli.Result quiet = Cli.runThreads(null, "ec", "encode", input.toString(), "-o", shards.toString(), "-k", "4", "-m",
            "2", "--force", "-q");
        assertEquals(0, quiet.exit(), quiet::toString);
        assertEquals("", quiet.err(), "--quiet prints no warning");
    }

    @Test
    void aForcedReEncodeRemovesOnlyTheReplacedSetsShards() throws Exception {
        Path shards = encode("shards"); // RS(10,4): shard-00 .. shard-13
        Path other = dir.resolve("other");
        assertEquals(0, Cli.runThreads(null, "ec", "encode", input.toString(), "-k", "16", "-m", "5", "-o",
            other.toString(), "-q").exit());
        Path notes = Files.writeString(shards.resolve("shard-99.sre"), "my notes\n");
        Path copy = Files.copy(EcEndToEndTest.shard(shards, 7), shards.resolve("shard-007.sre"));
        Path foreign = Files.copy(EcEndToEndTest.shard(other, 20), EcEndToEndTest.shard(shards, 20));
        String copyHash = EcEndToEndTest.sha256(copy);
        String foreignHash = EcEndToEndTest.sha256(foreign);
        // before, all three were removed with the old set's shards 6 to 13: they only had a shard's name
        Cli.Result r = Cli.runThreads(null, "ec", "encode", input.toString(), "-o", shards.toString(), "-k", "4", "-m", "2",
            "--force");
        assertEquals(0, r.exit(), r::toString);
        assertTrue(r.err().contains("sharray: warning: left " + notes + " in place: not a shard file of the old set "
            + "(truncated header (9 bytes))"), r::toString);
        assertTrue(r.err().contains("sharray: warning: left " + copy + " in place: not a shard file of the old set (shard 7 "
            + "is named shard-07.sre)"), r::toString);
        assertTrue(r.err().contains("sharray: warning: left " + foreign + " in place: a shard of another set"), r::toString);
        assertEquals("my notes\n", Files.readString(notes));
        assertEquals(copyHash, EcEndToEndTest.sha256(copy));
        assertEquals(foreignHash, EcEndToEndTest.sha256(foreign));
        assertEquals(List.of(".", "shard-00.sre", "shard-007.sre", "shard-01.sre", "shard-02.sre", "shard-03.sre",
            "shard-04.sre", "shard-05.sre", "shard-20.sre", "shard-99.sre"), names(shards), "the old set's 6 to 13 are removed");
        Cli.Result v = Cli.runThreads(null, "ec", "verify", shards.toString());
        assertEquals(0, v.exit(), v::toString);
        assertTrue(v.out().contains("6 of 6 shards intact"), v::toString);
        Path out = dir.resolve("out.bin");
        assertEquals(0, Cli.runThreads(null, "ec", "decode", shards.toString(), "-o", out.toString(), "-q").exit());
        assertEquals(inputHash, EcEndToEndTest.sha256(out));

        // no set in the folder at all: nothing under a shard name is one of a replaced set
        Path s4 = Files.createDirectory(dir.resolve("s4"));
        Path notes4 = Files.writeString(s4.resolve("shard-99.sre"), "my notes\n");
        Path copy4 = Files.copy(EcEndToEndTest.shard(shards, 0), s4.resolve("shard-007.sre"));
        String copy4Hash = EcEndToEndTest.sha256(copy4);
        Cli.Result r4 = Cli.runThreads(null, "ec", "encode", input.toString(), "-o", s4.toString(), "-k", "4", "-m", "2",
            "--force", "-q");
        assertEquals(0, r4.exit(), r4::toString);
        assertEquals("my notes\n", Files.readString(notes4));
        assertEquals(copy4Hash, EcEndToEndTest.sha256(copy4));
        assertEquals(0, Cli.runThreads(null, "ec", "verify", s4.toString()).exit());
    }

    @Test
    @org.junit.jupiter.api.Timeout(120)
    void forceNeverReplacesAFifoOrADeviceNode() throws Exception {
        Path shards = encode("shards");
        Path fifo = dir.resolve("fifo");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        Path link = Files.createSymbolicLink(dir.resolve("link"), fifo); // as /dev/stdout links to the terminal
        for (Path out : List.of(fifo, link)) {
            assertFails(Cli.runThreads(null, "ec", "decode", shards.toString(), "-o", out.toString(), "--force"), 1,
                "output is not a regular file: " + out);
            assertFails(Cli.runThreads(null, "ec", "decode", shards.toString(), "-o", out.toString()), 1,
                "output is not a regular file: " + out);
        }
        assertTrue(Files.isSymbolicLink(link), "the link was replaced by a regular file");
        assertTrue(Files.exists(fifo) && !Files.isRegularFile(fifo) && !Files.isDirectory(fifo), "the FIFO was replaced");
        assertEquals(List.of(".", "fifo", "input.bin", "link", "shards"), names(dir), "no partial output left");
        // a dangling link is an existing entry too: replaced only with --force
        Path dangling = Files.createSymbolicLink(dir.resolve("dangling"), dir.resolve("nowhere"));
        assertFails(Cli.runThreads(null, "ec", "decode", shards.toString(), "-o", dangling.toString()), 1,
            "output exists: " + dangling);
        assertTrue(Files.isSymbolicLink(dangling), "the dangling link was replaced without --force");
    }

    private static List<String> names(Path folder) throws Exception {
        try (Stream<Path> s = Files.list(folder)) {
            return Stream.concat(Stream.of("."), s.map(p -> p.getFileName().toString())).sorted().toList();
        }
    }

    @Test
    @org.junit.jupiter.api.Timeout(120)
    void aFifoOrAnOddlyNamedCopyIsNotAShard() throws Exception {
        Path shards = encode("odd");
        Path two = EcEndToEndTest.shard(shards, 2);
        Files.delete(two);
        Process mkfifo = new ProcessBuilder("mkfifo", two.toString()).start();
        assertEquals(0, mkfifo.waitFor());
        Path five = EcEndToEndTest.shard(shards, 5);
        Files.move(five, shards.resolve("shard-005.sre")); // same index, not its name
        Cli.Result v = Cli.runThreads(null, "ec", "verify", shards.toString());
        assertEquals(1, v.exit(), v::toString); // not all intact; it answered, so no hang on the FIFO
        assertTrue(v.out().contains("not a regular file"), v::toString);
        assertTrue(v.out().contains("recoverable") && !v.out().contains("NOT recoverable"), v::toString);
        assertTrue(v.out().lines().anyMatch(l -> l.matches("\\s*5\\s+data\\s+shard-05\\.sre\\s+missing.*")), v::toString);
        Path out = dir.resolve("odd.bin");
        assertEquals(0, Cli.runThreads(null, "ec", "decode", shards.toString(), "-o", out.toString()).exit());
        assertEquals(EcEndToEndTest.sha256(input), EcEndToEndTest.sha256(out));
    }

    @Test
    void fewerThanKIntactShards() throws Exception {
        Path shards = encode("shards");
        for (int i : new int[] {0, 3, 7, 10, 13}) {
            Files.delete(EcEndToEndTest.shard(shards, i));
        }
        Path out = dir.resolve("out.bin");
        assertFails(Cli.runThreads(null, "ec", "decode", shards.toString(), "-o", out.toString()), 1, "only 9 of 14 shards are intact");
        // which ones, and where to see why (ecfuzz review 51: the message named neither)
        assertFails(Cli.runThreads(null, "ec", "decode", shards.toString(), "-o", out.toString()), 1,
            "missing 0, 3, 7, 10, 13 ('sharray ec verify' on it says why for each)");
        assertFalse(Files.exists(out));
        assertFails(Cli.runThreads(null, "ec", "repair", shards.toString()), 1, "10 are needed");
        Cli.Result v = Cli.runThreads(null, "ec", "verify", shards.toString());
        assertEquals(1, v.exit());
        assertTrue(v.out().contains("NOT recoverable"), v::toString);
    }

    @Test
    void shardsFromDifferentSets() throws Exception {
        Path a = encode("a");
        Path b = encode("b");
        Path mixed = Files.createDirectory(dir.resolve("mixed"));
        for (int i = 0; i < 14; i++) {
            Files.copy(EcEndToEndTest.shard(i < 7 ? a : b, i), EcEndToEndTest.shard(mixed, i));
        }
        assertFails(Cli.runThreads(null, "ec", "decode", mixed.toString(), "-o", dir.resolve("o").toString()), 1,
            "different sets");
        Cli.Result v = Cli.runThreads(null, "ec", "verify", mixed.toString());
        assertTrue(v.out().contains("foreign"), v::toString);
    }

    /**
     * Two encodings in one folder, each with enough shards to be decoded: decode wrote the one with more valid headers
     * (or the lower indexes on a tie) and called the other's shards damaged, and repair overwrote them with rebuilt
     * shards of its own, destroying a set that decoded alone (ecfuzz review 51). Both refuse now, naming both sets,
     * and change nothing; verify says why.
     */
    @Test
    void twoDecodableSetsInOneFolderAreRefusedNotMixed() throws Exception {
        final Path other = EcEndToEndTest.randomFile(dir.resolve("other.bin"), 100_000, 77);
        final Path mixed = Files.createDirectory(dir.resolve("two-sets"));
        copyShards(encode(input, 2, 2, "rs22-input"), mixed, 0, 1); // each set: enough to decode it alone
        copyShards(encode(other, 2, 2, "rs22-other"), mixed, 2, 3);
        final List<String> before = new java.util.ArrayList<>();
        for (int i = 0; i < 4; i++) {
            before.add(EcEndToEndTest.sha256(EcEndToEndTest.shard(mixed, i)));
        }
        final Path out = dir.resolve("two-sets.out");
        assertFails(Cli.runThreads(null, "ec", "decode", mixed.toString(), "-o", out.toString()), 1,
            "will not decode " + mixed + ": it holds two encodings with enough intact shards each");
        assertFalse(Files.exists(out));
        final Cli.Result repair = Cli.runThreads(null, "ec", "repair", mixed.toString());
        assertFails(repair, 1, "will not repair");
        assertTrue(repair.err().contains("shards [0, 1]") && repair.err().contains("shards [2, 3]"), repair::toString);
        for (int i = 0; i < 4; i++) {
            assertEquals(before.get(i), EcEndToEndTest.sha256(EcEndToEndTest.shard(mixed, i)), "shard " + i + " unchanged");
        }
        final Cli.Result v = Cli.runThreads(null, "ec", "verify", mixed.toString());
        assertTrue(v.out().contains("two encodings with enough intact shards each to be decoded"), v::toString);
    }

    /**
     * Another encoding that cannot decode here is no rival: its shards with damaged bodies beside a complete set leave
     * decode and repair as they were (diff review 51: refused on valid headers alone). One that decodes beside a set
     * that cannot is named by the "cannot recover" message.
     */
    @Test
    void aSecondSetIsARivalOnlyWhenItDecodes() throws Exception {
        final Path other = EcEndToEndTest.randomFile(dir.resolve("other.bin"), 100_000, 78);
        final Path folder = Files.createDirectory(dir.resolve("a-and-damaged-b"));
        copyShards(encode(input, 2, 2, "a22"), folder, 0, 1, 2, 3);
        copyShards(encode(other, 2, 4, "b24"), folder, 4, 5);
        for (int i : new int[] {4, 5}) {
            EcEndToEndTest.flipBit(EcEndToEndTest.shard(folder, i), 1000 * 8);
        }
        final Path out = dir.resolve("a.out");
        final Cli.Result decoded = Cli.runThreads(null, "ec", "decode", folder.toString(), "-o", out.toString());
        assertEquals(0, decoded.exit(), decoded::toString);
        assertEquals(EcEndToEndTest.sha256(input), EcEndToEndTest.sha256(out));
        final Cli.Result repaired = Cli.runThreads(null, "ec", "repair", folder.toString());
        assertEquals(0, repaired.exit(), repaired::toString);
        assertTrue(repaired.out().contains("nothing to repair"), repaired::toString);

        final Path broken = Files.createDirectory(dir.resolve("d-short-and-c"));
        copyShards(encode(input, 4, 4, "d44"), broken, 0, 1, 2); // 3 of RS(4,4): chosen, cannot recover
        copyShards(encode(other, 2, 6, "c26"), broken, 6, 7); // 2 of RS(2,6): decodes alone
        final Cli.Result refused = Cli.runThreads(null, "ec", "decode", broken.toString(), "-o", dir.resolve("d.out").toString());
        assertFails(refused, 1, "only 3 of 8 shards are intact");
        assertTrue(refused.err().contains("another encoding here decodes on its own, set ")
            && refused.err().contains("RS(2,6) VANDERMONDE, shards [6, 7])"), refused::toString);
        final Cli.Result v = Cli.runThreads(null, "ec", "verify", broken.toString());
        assertTrue(v.out().contains("NOT recoverable") && v.out().contains("another encoding here decodes on its own")
            && !v.out().contains("enough intact shards each"), v::toString);
    }

    @Test
    void shardsOfAnotherFormatVersion() throws Exception {
        Path shards = encode("shards");
        for (int i = 0; i < 14; i++) {
            Path s = EcEndToEndTest.shard(shards, i);
            try (RandomAccessFile raf = new RandomAccessFile(s.toFile(), "rw")) {
                byte[] h = new byte[64];
                raf.readFully(h);
                ByteBuffer bb = ByteBuffer.wrap(h).order(ByteOrder.LITTLE_ENDIAN);
                bb.putShort(8, (short) 9);
                CRC32C crc = new CRC32C();
                crc.update(h, 0, 60);
                bb.putInt(60, (int) crc.getValue());
                raf.seek(0);
                raf.write(h);
            }
        }
        assertFails(Cli.runThreads(null, "ec", "decode", shards.toString(), "-o", dir.resolve("o").toString()), 1,
            "format version 9");
    }

    @Test
    void headersEditedToSayTheFileIsEmptyAreCorrupted() throws Exception {
        Path shards = encode("shards");
        for (int i = 0; i < 14; i++) {
            setOriginalLength(EcEndToEndTest.shard(shards, i), 0);
        }
        // before, the 14 edited headers made a set of an empty file: verify said all intact, decode wrote 0 bytes
        assertFails(Cli.runThreads(null, "ec", "verify", shards.toString()), 1, "no valid shard in " + shards);
        Path out = dir.resolve("o");
        assertFails(Cli.runThreads(null, "ec", "decode", shards.toString(), "-o", out.toString()), 1,
            "no valid shard in " + shards);
        // and why, for the first few (ecfuzz review 51: no reason was given)
        final Cli.Result why = Cli.runThreads(null, "ec", "decode", shards.toString(), "-o", out.toString());
        assertTrue(why.err().contains("(shard-00.sre: ") && why.err().contains("; 11 more)"), why::toString);
        assertFalse(Files.exists(out));

        Path one = encode("one");
        setOriginalLength(EcEndToEndTest.shard(one, 4), 0);
        Cli.Result v = Cli.runThreads(null, "ec", "verify", one.toString());
        assertEquals(1, v.exit(), v::toString);
        assertEquals("corrupted", EcEndToEndTest.statusOf(v.out(), 4));
        assertTrue(v.out().contains("inconsistent header fields"), v::toString);
        assertEquals(0, Cli.runThreads(null, "ec", "decode", one.toString(), "-o", out.toString(), "-q").exit());
        assertEquals(inputHash, EcEndToEndTest.sha256(out));
    }

    @Test
    void headersEditedToAnotherMatrixMakeTheShardsDisagree() throws Exception {
        final Path shards = encode("shards");
        for (int i = 0; i < 14; i++) {
            rewriteHeader(EcEndToEndTest.shard(shards, i), bb -> bb.put(16, (byte) 1)); // Vandermonde -> Cauchy
        }
        // before: "14 of 14 shards intact; all shards intact", exit 0, and a decode missing a data shard wrote wrong
        // bytes with exit 0 (ecfuzz review 51)
        final Cli.Result v = Cli.runThreads(null, "ec", "verify", shards.toString());
        assertEquals(1, v.exit(), v::toString);
        assertTrue(v.out().contains("the shards DISAGREE") && v.out().contains(
            "the shards disagree: shards 10-13 differ from what shards 0-9 give (first at body byte 0)")
            && v.out().contains("which shard is wrong cannot be told"), v::toString);
        assertEquals("intact", EcEndToEndTest.statusOf(v.out(), 12));
        assertTrue(v.out().lines().anyMatch(l -> l.contains("shard-12.sre") && l.contains("differs from the others")),
            v::toString);

        final String before = EcEndToEndTest.sha256(EcEndToEndTest.shard(shards, 13));
        assertFails(Cli.runThreads(null, "ec", "repair", shards.toString()), 1,
            "will not repair " + shards + ": the shards disagree: shards 10-13 differ");
        Files.delete(EcEndToEndTest.shard(shards, 1));
        // k + 3 intact: three still compared, and a repair would write shard 1 from bytes that disagree
        final Cli.Result one = Cli.runThreads(null, "ec", "verify", shards.toString());
        assertEquals(1, one.exit(), one::toString);
        assertTrue(one.out().contains("shards 11-13 differ from what shards 0, 2-10 give"), one::toString);
        assertFails(Cli.runThreads(null, "ec", "repair", shards.toString()), 1, "nothing was written");
        assertFalse(Files.exists(EcEndToEndTest.shard(shards, 1)));
        assertEquals(before, EcEndToEndTest.sha256(EcEndToEndTest.shard(shards, 13)));

        // k intact: nothing left to compare with, so repair proceeds as before (no shard can be proved wrong)
        for (int i = 11; i < 14; i++) {
            Files.delete(EcEndToEndTest.shard(shards, i));
        }
        final Cli.Result k = Cli.runThreads(null, "ec", "verify", shards.toString());
        assertTrue(k.exit() == 1 && k.out().contains("10 of 14 shards intact; recoverable") && !k.out().contains("agree"),
            k::toString);
        assertEquals(0, Cli.runThreads(null, "ec", "repair", shards.toString(), "-q").exit());
    }

    @Test
    void aShorterOriginalLengthInTheHeadersIsRefusedByDecode() throws Exception {
        // the input is 2 MiB + 7 bytes; RS(10,4) gives shards of 209,716 bytes and 1 byte of zero padding
        final long length = Files.size(input);
        final byte[] last = new byte[2];
        try (RandomAccessFile raf = new RandomAccessFile(input.toFile(), "r")) {
            raf.seek(length - 2);
            raf.readFully(last);
        }
        assertTrue(last[0] != 0 && last[1] != 0, "the seeded input ends in a zero byte: pick another seed");
        final Path shards = encode("shards");
        for (int i = 0; i < 14; i++) {
            setOriginalLength(EcEndToEndTest.shard(shards, i), length - 2); // same shard length: valid headers
        }
        final Path out = dir.resolve("out.bin");
        // before: exit 0 and an output 2 bytes short
        assertFails(Cli.runThreads(null, "ec", "decode", shards.toString(), "-o", out.toString()), 1,
            "will not decode " + shards + ": data shard 9 holds non-zero bytes past the original length of "
                + (length - 2) + " bytes");
        assertFalse(Files.exists(out));
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(List.of("input.bin", "shards"), left.map(p -> p.getFileName().toString()).sorted().toList());
        }
        final Cli.Result v = Cli.runThreads(null, "ec", "verify", shards.toString());
        assertEquals(1, v.exit(), v::toString);
        assertTrue(v.out().contains("data shard 9 holds non-zero bytes past the original length"), v::toString);
        assertFails(Cli.runThreads(null, "ec", "repair", shards.toString()), 1, "will not repair");

        // the padding shard rebuilt from parity: the same refusal
        Files.delete(EcEndToEndTest.shard(shards, 9));
        assertFails(Cli.runThreads(null, "ec", "decode", shards.toString(), "-o", out.toString()), 1,
            "data shard 9 holds non-zero bytes");
        assertFalse(Files.exists(out));
    }

    /** Rewrites a shard header's original length, with a valid header checksum. */
    private static void setOriginalLength(Path shard, long length) throws Exception {
        rewriteHeader(shard, bb -> bb.putLong(32, length));
    }

    /** Edits a shard header in place ({@code edit} gets it little-endian), with a valid header checksum. */
    private static void rewriteHeader(Path shard, java.util.function.Consumer<ByteBuffer> edit) throws Exception {
        try (RandomAccessFile raf = new RandomAccessFile(shard.toFile(), "rw")) {
            byte[] h = new byte[64];
            raf.readFully(h);
            ByteBuffer bb = ByteBuffer.wrap(h).order(ByteOrder.LITTLE_ENDIAN);
            edit.accept(bb);
            CRC32C crc = new CRC32C();
            crc.update(h, 0, 60);
            bb.putInt(60, (int) crc.getValue());
            raf.seek(0);
            raf.write(h);
        }
    }

    @Test
    void unreadableShards() throws Exception {
        Path shards = encode("shards");
        boolean root = "root".equals(System.getProperty("user.name"));
        for (int i : new int[] {1, 2, 3, 4}) {
            makeUnreadable(EcEndToEndTest.shard(shards, i), root);
        }
        Cli.Result v = Cli.runThreads(null, "ec", "verify", shards.toString());
        assertEquals(1, v.exit(), v::toString);
        assertEquals("unreadable", EcEndToEndTest.statusOf(v.out(), 3));
        Cli.Result d = Cli.runThreads(null, "ec", "decode", shards.toString(), "-o", dir.resolve("o").toString());
        assertEquals(0, d.exit(), d::toString);
        assertEquals(inputHash, EcEndToEndTest.sha256(dir.resolve("o")));
        makeUnreadable(EcEndToEndTest.shard(shards, 5), root);
        assertFails(Cli.runThreads(null, "ec", "decode", shards.toString(), "-o", dir.resolve("o2").toString()), 1,
            "only 9 of 14");
    }

    private static void makeUnreadable(Path s, boolean root) throws Exception {
        if (root) {
            Files.delete(s);
            Files.createDirectory(s); // root reads any file: a directory is what it cannot read as a shard
        } else {
            assertTrue(s.toFile().setReadable(false));
        }
    }

    @Test
    void diskFullRemovesPartialOutputs() throws Exception {
        Path mnt = smallTmpfs("small");
        try {
            Path shards = mnt.resolve("shards");
            assertFails(Cli.runThreads(null, "ec", "encode", input.toString(), "-o", shards.toString()), 1,
                "No space left on device");
            assertFalse(Files.exists(shards), "the shard directory it created is removed");
            Path deep = mnt.resolve("a").resolve("b").resolve("shards");
            assertFails(Cli.runThreads(null, "ec", "encode", input.toString(), "-o", deep.toString()), 1,
                "No space left on device");
            assertFalse(Files.exists(mnt.resolve("a")), "the parent directories it created are removed too");
            Files.createDirectory(shards);
            assertFails(Cli.runThreads(null, "ec", "encode", input.toString(), "-o", shards.toString()), 1,
                "No space left on device");
            assertNoFiles(mnt);

            Path good = encode("good");
            Path out = mnt.resolve("out.bin");
            assertFails(Cli.runThreads(null, "ec", "decode", good.toString(), "-o", out.toString()), 1, "No space left on device");
            assertNoFiles(mnt);
            assertEquals(inputHash, EcEndToEndTest.sha256(input));
        } finally {
            run("umount", "-l", mnt.toString()); // lazy: detached even while a mapping is still being released
        }
    }

    @Test
    void aSparseInputOnAFullTmpfsIsReportedAsHolesItCannotBackNotAsShrinking() throws Exception {
        Path mnt = smallTmpfs("sparse");
        try {
            Path sparse = mnt.resolve("in.bin");
            try (RandomAccessFile f = new RandomAccessFile(sparse.toFile(), "rw")) {
                f.setLength(512 << 10); // all hole: reading it through a mapping needs a page of the tmpfs per page
            }
            fill(mnt);
            Path shards = dir.resolve("sparse-shards");
            // before: "the input shrank while encoding", though it had not changed at all
            for (boolean threads : new boolean[] {true, false}) {
                Cli.Result r = threads ? Cli.runThreads(null, "ec", "encode", sparse.toString(), "-o", shards.toString())
                    : Cli.run(null, "ec", "encode", sparse.toString(), "-o", shards.toString());
                assertFails(r, 1, "the input has holes (parts never written) that its file system, which is full,"
                    + " cannot back to read them");
                assertFalse(Files.exists(shards), "nothing is left behind");
                assertEquals(512 << 10, Files.size(sparse), "the input is left alone");
            }
        } finally {
            run("umount", "-l", mnt.toString());
        }
    }

    @Test
    void sparseShardsOnAFullTmpfsAreIntactNotTruncated() throws Exception {
        Path zeros = Files.write(dir.resolve("zeros.bin"), new byte[800_000]);
        Path shards = dir.resolve("zero-shards");
        assertEquals(0, Cli.runThreads(null, "ec", "encode", zeros.toString(), "-k", "4", "-m", "2", "-o",
            shards.toString(), "-q").exit());
        Path mnt = smallTmpfs("sparse-shards");
        try {
            // copied with holes for their zeros, and without shard 0: mapping a hole needs a page the tmpfs lacks
            Path copy = Files.createDirectory(mnt.resolve("zs"));
            for (int i = 1; i < 6; i++) {
                assertEquals(0, run("cp", "--sparse=always", EcEndToEndTest.shard(shards, i).toString(), copy.toString()));
            }
            fill(mnt);
            // before: "truncated  shrank while it was being read" for each, "0 of 6 shards intact; NOT recoverable"
            Cli.Result verify = Cli.runThreads(null, "ec", "verify", copy.toString());
            assertEquals(1, verify.exit(), verify::toString);
            assertTrue(verify.out().contains("5 of 6 shards intact; recoverable (1 damaged; run 'sharray ec repair')"),
                verify::toString);
            // rebuilding shard 0 maps the others: said to have shrunk, now what it is
            assertFails(Cli.runThreads(null, "ec", "decode", copy.toString(), "-o", dir.resolve("out.bin").toString()), 1,
                "has holes (parts never written) that its file system, which is full, cannot back to read them: free"
                    + " space there, or copy the shards to a file system with room");
            assertFalse(Files.exists(dir.resolve("out.bin")));
        } finally {
            run("umount", "-l", mnt.toString());
        }
    }

    /** Writes into {@code folder} until its file system is full. */
    private static void fill(Path folder) {
        try (RandomAccessFile fill = new RandomAccessFile(folder.resolve("fill").toFile(), "rw")) {
            byte[] chunk = new byte[64 << 10];
            while (true) {
                fill.write(chunk);
            }
        } catch (java.io.IOException full) {
            // No space left on device: the file system is full
        }
    }

    /** A 1 MiB tmpfs mounted at a new folder {@code name} of the test's folder: unmount it with {@code umount -l}. */
    private Path smallTmpfs(String name) throws Exception {
        Path mnt = Files.createDirectory(dir.resolve(name));
        Assertions.assertEquals(0, run("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt.toString()),
            "mounting a small tmpfs needs root (CI runs as root)");
        return mnt;
    }

    private static int run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor();
    }

    private static void assertNoFiles(Path root) throws Exception {
        try (Stream<Path> s = Files.walk(root)) {
            List<Path> files = s.filter(Files::isRegularFile).toList();
            assertTrue(files.isEmpty(), "left behind: " + files);
        }
    }
}
