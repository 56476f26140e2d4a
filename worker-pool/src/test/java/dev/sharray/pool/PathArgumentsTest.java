package dev.sharray.pool;

import dev.sharray.reducers.MalformedDataException;
import dev.sharray.reducers.Reducers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * "Process these files": {@code pool.map(path -> ..., List<Path>)}, the worker reading each file, its results holding
 * paths, URIs and files. Before, the map was refused on submit: "no reducer for sun.nio.fs.UnixPath".
 */
class PathArgumentsTest {
    /** What a worker found out about one file. */
    record Sized(Path path, long bytes, URI uri, File file) { }

    @Test
    @Timeout(120)
    void aPoolMapsOverRealFilesAndReturnsPathsUrisAndFiles(@TempDir Path dir) throws Exception {
        final List<Path> files = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            final Path f = dir.resolve(i == 3 ? "part 3 \u00e9\u00fc.csv" : "part-" + i + ".csv");
            Files.write(f, new byte[i * 1000 + 7]);
            files.add(f);
        }
        files.add(Path.of("pom.xml")); // relative: workers start in this JVM's working directory, so it is this file
        final List<Sized> expected = new ArrayList<>();
        for (Path f : files) {
            expected.add(new Sized(f, Files.size(f), f.toUri(), f.toFile()));
        }
        try (ProcessPool pool = ProcessPool.builder().workers(2).heapSize("128m").build()) {
            assertEquals(expected, pool.map((Path p) -> new Sized(p, Files.size(p), p.toUri(), p.toFile()), files));
            // captured by the function: the output folder a "process these files" task writes into
            final Path out = Files.createDirectory(dir.resolve("out"));
            final Locale locale = Locale.forLanguageTag("de-DE-u-co-phonebk");
            final List<Path> written = pool.map((Path p) -> Files.writeString(out.resolve(p.getFileName() + ".txt"),
                String.format(locale, "%,d", Files.size(p))), files.subList(5, 7));
            assertEquals(List.of(out.resolve("part-5.csv.txt"), out.resolve("pom.xml.txt")), written);
            assertEquals("5.007", Files.readString(written.get(0)));
            // a Path[] as one argument, and the other new values as they are
            assertEquals(Files.size(files.get(5)) + Files.size(files.get(0)), pool.submit((Path[] ps) -> {
                long total = 0;
                for (Path p : ps) {
                    total += Files.size(p);
                }
                return total;
            }, new Path[] {files.get(5), files.get(0)}).get(30, TimeUnit.SECONDS));
            @SuppressWarnings("deprecation") final List<Object> others = List.of(
                Locale.forLanguageTag("de-DE-u-co-phonebk"), new Locale("ja", "JP", "JP"), Locale.ROOT,
                new Date(1_764_806_400_123L), URI.create("s3://bucket/a%20b"));
            assertEquals(others, pool.submit((List<Object> xs) -> xs, others).get(30, TimeUnit.SECONDS));
            hostileValuesFailTheirTaskAndTheWorkerLivesOn(pool);
        }
    }

    private static void hostileValuesFailTheirTaskAndTheWorkerLivesOn(ProcessPool pool) throws Exception {
        final FunctionCodec.Encoded fn = new FunctionCodec.Encoded(0,
            FunctionCodec.encode((Object x) -> String.valueOf(x), Reducers.defaults(), null).bytes);
        // tags 50-54: a Path holding NUL, a File claiming 2 GB, a malformed URI, a non-canonical language tag, a
        // Date cut short
        final byte[][] messages = {ValueBytes.of(50, "/tmp/a\0b"), ValueBytes.of(51, Integer.MAX_VALUE),
            ValueBytes.of(52, "http://[::1"), ValueBytes.of(53, (byte) 0, "en-US-!!"), ValueBytes.of(54, 1)};
        final String[] expected = {"invalid Path", "truncated input", "invalid URI", "invalid Locale",
            "truncated input"};
        for (int i = 0; i < messages.length; i++) {
            final byte[] arg = messages[i];
            final ExecutionException e = assertThrows(ExecutionException.class,
                () -> pool.submitEncoded(fn, arg).get(30, TimeUnit.SECONDS));
            final RemoteTaskException r = assertInstanceOf(RemoteTaskException.class, e.getCause());
            assertEquals(MalformedDataException.class.getName(), r.remoteClassName(), r.getMessage());
            assertTrue(r.getMessage().contains(expected[i]), r.getMessage());
        }
        assertEquals("/tmp/ok", pool.submit((Object x) -> String.valueOf(x), (Object) Path.of("/tmp/ok"))
            .get(30, TimeUnit.SECONDS));
    }
}
