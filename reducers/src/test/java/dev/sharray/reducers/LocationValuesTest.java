package dev.sharray.reducers;

import org.agrona.ExpandableArrayBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code Path}, {@code File} and {@code URI} cross as themselves, so {@code pool.map(path -> ..., paths)} works.
 * Before, each was refused on write: "no reducer for sun.nio.fs.UnixPath".
 */
class LocationValuesTest {
    private static final Reducers R = Reducers.defaults();

    /** What a task that processes files would take and give back. */
    record Job(Path input, File log, URI source, List<Path> more, Path[] parts) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Job j && input.equals(j.input) && log.equals(j.log) && source.equals(j.source)
                && more.equals(j.more) && Arrays.equals(parts, j.parts);
        }

        @Override
        public int hashCode() {
            return input.hashCode();
        }
    }

    private static List<Object> values(Path dir) throws Exception {
        return List.of(
            Path.of("/"), Path.of(""), Path.of("relative/data.csv"), Path.of("/tmp/a b/\u00fc\u00e9\u4e2d.txt"),
            Path.of("..", "x"), dir, Files.createTempFile(dir, "in", ".csv"), Path.of("/a//b/"),
            new File("/"), new File(""), new File("rel/x.log"), new File("/tmp/a b/\u00fc"), dir.toFile(),
            URI.create("http://user@example.com:8080/p/a?q=1#frag"), URI.create("mailto:a@example.com"),
            URI.create("urn:isbn:0451450523"), URI.create("../up"), URI.create(""), URI.create("http://[::1]:80/"),
            new URI("http", "us er", "h.example", 80, "/a b/\u00fc", "q=\u00e9", "frag ment"),
            dir.toUri(), URI.create("s3://bucket/key%2Fwith%20escapes"));
    }

    @Test
    void eachCrossesAsItselfAndAPathAsAPathOfTheDefaultFileSystem(@TempDir Path dir) throws Exception {
        for (Object v : values(dir)) {
            final Object back = R.fromBytes(R.toBytes(v));
            assertEquals(v, back, v.getClass().getSimpleName() + " " + v);
            assertSame(v.getClass(), back.getClass(), String.valueOf(v));
        }
        final Path back = (Path) R.fromBytes(R.toBytes(dir));
        assertSame(FileSystems.getDefault(), back.getFileSystem());
        assertTrue(Files.isDirectory(back));
        // the JDK's class is no public one: it is matched by the interface it implements
        assertFalse(java.lang.reflect.Modifier.isPublic(dir.getClass().getModifiers()));
    }

    @Test
    void theyCrossInsideRecordsCollectionsAndArrays(@TempDir Path dir) throws Exception {
        final Path a = Files.createTempFile(dir, "a", ".txt");
        final Job job = new Job(a, new File(dir.toFile(), "log"), a.toUri(), List.of(a, dir, Path.of("x")),
            new Path[] {a, null, dir});
        assertEquals(job, R.fromBytes(R.toBytes(job)));
        final List<Object> list = new ArrayList<>(values(dir));
        assertEquals(list, R.fromBytes(R.toBytes(list)));
        final Map<Path, URI> map = Map.of(a, a.toUri(), dir, dir.toUri());
        assertEquals(map, R.fromBytes(R.toBytes(map)));
        final Path[] paths = {a, dir, null, Path.of("")};
        final Path[] pathsBack = (Path[]) R.fromBytes(R.toBytes(paths));
        assertArrayEquals(paths, pathsBack);
        final File[] files = {a.toFile(), null};
        assertArrayEquals(files, (File[]) R.fromBytes(R.toBytes(files)));
        final URI[] uris = {a.toUri(), URI.create("x:y")};
        assertArrayEquals(uris, (URI[]) R.fromBytes(R.toBytes(uris)));
        final Object[] mixed = values(dir).toArray();
        assertArrayEquals(mixed, (Object[]) R.fromBytes(R.toBytes(mixed)));
        // a Stream's toArray(Path[]::new), the usual way to get a Path[]
        try (Stream<Path> s = Stream.of(a, dir)) {
            assertArrayEquals(new Path[] {a, dir}, (Path[]) R.fromBytes(R.toBytes(s.toArray(Path[]::new))));
        }
    }

    @Test
    void aPathOfAZipFileSystemIsRefusedSayingWhy(@TempDir Path dir) throws Exception {
        final Path zip = dir.resolve("a.zip");
        try (FileSystem fs = FileSystems.newFileSystem(zip, Map.of("create", "true"))) {
            final Path inZip = fs.getPath("/data/x.csv");
            for (Object v : new Object[] {inZip, List.of(inZip), new Path[] {inZip}}) {
                final ReducerException e = assertThrows(ReducerException.class, () -> R.toBytes(v));
                assertTrue(e.getMessage().startsWith("cannot send the path /data/x.csv of a 'jar' file system ("),
                    e.getMessage());
                assertTrue(e.getMessage().contains("only paths of the default file system cross"), e.getMessage());
            }
        }
    }

    @Test
    void aNameWhoseBytesItsStringCannotHoldIsRefused(@TempDir Path dir) throws Exception {
        // a Latin-1 "café" on a UTF-8 system: its string has U+FFFD where the byte 0xE9 is, naming another file
        final Process p = new ProcessBuilder("/bin/sh", "-c", "touch \"$(printf 'caf\\351')\"").directory(dir.toFile())
            .start();
        assertEquals(0, p.waitFor());
        final Path latin1;
        try (Stream<Path> s = Files.list(dir)) {
            latin1 = s.findFirst().orElseThrow();
        }
        assertFalse(Path.of(latin1.toString()).equals(latin1), "premise: its string names another path");
        final ReducerException e = assertThrows(ReducerException.class, () -> R.toBytes(List.of(latin1)));
        assertTrue(e.getMessage().contains("its name holds bytes that are not valid UTF-8"), e.getMessage());
    }

    /** Lists its folder argument, writes the first path, prints what that gave. */
    static final class AsciiChild {
        public static void main(String[] args) throws Exception {
            try (Stream<Path> s = Files.list(Path.of(args[0]))) {
                final Path p = s.findFirst().orElseThrow();
                System.out.println(System.getProperty("sun.jnu.encoding"));
                try {
                    Reducers.defaults().toBytes(p);
                    System.out.println("written");
                } catch (RuntimeException e) {
                    System.out.println(e.getClass().getName() + ": " + e.getMessage());
                }
            }
        }
    }

    @Test
    void soItIsUnderAnAsciiLocaleWhereItsStringIsNoValidPathAtAll(@TempDir Path dir) throws Exception {
        // under LC_ALL=C sun.jnu.encoding is ASCII: Path.of of the string (U+FFFD in it) throws InvalidPathException,
        // which escaped toBytes before
        assertEquals(0, new ProcessBuilder("/bin/sh", "-c", "touch \"$(printf 'caf\\351')\"").directory(dir.toFile())
            .start().waitFor());
        final List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
            .toString(), "-Xmx64m", "-XX:TieredStopAtLevel=1"));
        for (String flag : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (flag.startsWith("--")) {
                cmd.add(flag); // this JVM's --add-exports and the like, which Agrona's buffers need
            }
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), AsciiChild.class.getName(), dir.toString()));
        final ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().keySet().removeIf(k -> k.startsWith("LC_") || k.equals("LANG"));
        pb.environment().put("LC_ALL", "C");
        final Process p = pb.start();
        final String[] out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip().split("\n");
        assertEquals(0, p.waitFor());
        assertEquals("ANSI_X3.4-1968", out[0]);
        assertTrue(out[1].startsWith(ReducerException.class.getName() + ": cannot send the path "), out[1]);
        assertTrue(out[1].contains("its name holds bytes that are not valid ANSI_X3.4-1968"), out[1]);
    }

    /** Not the File class itself: it would arrive as a plain File, without what the subclass adds. */
    static final class TrackedFile extends File {
        TrackedFile(String path) {
            super(path);
        }
    }

    @Test
    void aFileHoldingNulOrOfASubclassIsRefusedOnWrite() {
        final ReducerException nul = assertThrows(ReducerException.class, () -> R.toBytes(new File("a\0b")));
        assertEquals("cannot send the File a?b: its path holds a NUL character, which no file name can",
            nul.getMessage());
        final ReducerException sub = assertThrows(ReducerException.class, () -> R.toBytes(new TrackedFile("x")));
        assertTrue(sub.getMessage().startsWith("no reducer for " + TrackedFile.class.getName()), sub.getMessage());
    }

    /** A user's own reducer for Path keeps its precedence over the built-in handling. */
    public static final class PathAsUri implements Reducer<Path> {
        @Override
        public Class<Path> type() {
            return Path.class;
        }

        @Override
        public void write(Path value, ValueWriter out) {
            out.writeString(value.toUri().toString());
        }

        @Override
        public Path read(ValueReader in) {
            return Path.of(URI.create(in.readString()));
        }
    }

    @Test
    void aRegisteredReducerForPathStillWins() {
        final Reducers r = Reducers.defaults().with(new PathAsUri());
        final byte[] bytes = r.toBytes(Path.of("/tmp/x"));
        assertEquals(Tags.USER, bytes[0]);
        assertEquals(Path.of("/tmp/x"), r.fromBytes(bytes));
    }

    private static byte[] message(byte tag, Consumer<ValueWriter> body) {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64);
        final ValueWriter w = new ValueWriter(Reducers.defaults()).wrap(buffer, 0, null);
        w.writeByte(tag);
        body.accept(w);
        return Arrays.copyOf(buffer.byteArray(), w.position());
    }

    private static String refusal(byte[] message) {
        return assertThrows(MalformedDataException.class, () -> R.fromBytes(message)).getMessage();
    }

    @Test
    void invalidStringsAreMalformedDataNotTheParsersException() {
        assertEquals("invalid Path at offset 0: Nul character not allowed",
            refusal(message(Tags.PATH, w -> w.writeString("a\0b"))));
        assertEquals("invalid File at offset 0: NUL character at index 0",
            refusal(message(Tags.FILE, w -> w.writeString("\0"))));
        for (String uri : new String[] {"http://[::1", "a b", ":", "%zz", "http://h/\u0000"}) {
            final String m = refusal(message(Tags.URI, w -> w.writeString(uri)));
            assertTrue(m.startsWith("invalid URI at offset 0: "), m);
        }
        for (byte tag : new byte[] {Tags.PATH, Tags.FILE, Tags.URI}) {
            assertTrue(refusal(message(tag, w -> w.writeString(null))).startsWith("a null "), "tag " + tag);
        }
        // the message names where, not the whole (maybe huge) hostile string
        final String huge = "x".repeat(1 << 20) + "\0";
        assertTrue(refusal(message(Tags.PATH, w -> w.writeString(huge))).length() < 200);
        // as an element of an array of paths, too
        assertTrue(refusal(message(Tags.OBJECT_ARRAY, w -> {
            w.writeString("java.nio.file.Path");
            w.writeInt(1);
            w.writeByte(Tags.PATH);
            w.writeString("/tmp/\0");
        })).startsWith("invalid Path"));
    }

    @Test
    void hugeNegativeOrMissingLengthsAndBadUtf8AreRefusedBeforeAllocating(@TempDir Path dir) throws Exception {
        for (byte tag : new byte[] {Tags.PATH, Tags.FILE, Tags.URI}) {
            assertTrue(refusal(message(tag, w -> w.writeInt(Integer.MAX_VALUE))).startsWith("truncated input"));
            assertTrue(refusal(message(tag, w -> w.writeInt(-5))).startsWith("negative string length"));
            assertTrue(refusal(message(tag, w -> {
                w.writeInt(2);
                w.writeByte((byte) 0xC3); // a UTF-8 lead byte, then no continuation byte
                w.writeByte((byte) 'x');
            })).contains("is not valid UTF-8"));
            assertTrue(refusal(new byte[] {tag}).startsWith("truncated input"));
        }
        // every truncation of every value
        for (Object v : values(dir)) {
            final byte[] good = R.toBytes(v);
            for (int n = 0; n < good.length; n++) {
                final byte[] cut = Arrays.copyOf(good, n);
                assertThrows(MalformedDataException.class, () -> R.fromBytes(cut), n + " bytes of " + v);
            }
        }
    }

    @Test
    void randomDamageOnlyEverGivesMalformedData(@TempDir Path dir) throws Exception {
        final byte[] good = R.toBytes(values(dir));
        final Random random = new Random(7);
        for (int i = 0; i < 5000; i++) {
            final byte[] bad = good.clone();
            for (int f = 1 + random.nextInt(3); f > 0; f--) {
                bad[random.nextInt(bad.length)] ^= (byte) (1 + random.nextInt(255));
            }
            try {
                assertInstanceOf(List.class, R.fromBytes(bad));
            } catch (MalformedDataException expected) {
                // the only acceptable failure
            }
        }
    }
}
