package dev.sharray.pool;

import dev.sharray.pool.elsewhere.Celsius;
import dev.sharray.reducers.Reducer;
import dev.sharray.reducers.Reducers;
import dev.sharray.reducers.ValueReader;
import dev.sharray.reducers.ValueWriter;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad settings of a pool are refused where they are given, naming what is wrong, and a worker JVM that cannot
 * start says why, whichever of its streams the JVM said it on.
 */
class BuilderInputTest {
    @Test
    void outOfRangeAndNullSettingsAreRefusedByName() {
        // before: workers(100_000) was taken and the pool forked that many JVMs at once
        final IllegalArgumentException tooMany = assertThrows(IllegalArgumentException.class,
            () -> ProcessPool.builder().workers(ProcessPool.MAX_WORKERS + 1));
        assertTrue(tooMany.getMessage().contains("workers must be 1 to " + ProcessPool.MAX_WORKERS), tooMany.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ProcessPool.builder().workers(0));
        ProcessPool.builder().workers(ProcessPool.MAX_WORKERS); // the bound itself is allowed
        // before: bare NullPointerExceptions from String.matches, Arrays.asList or a later build()
        assertEquals("heapSize", assertThrows(NullPointerException.class, () -> ProcessPool.builder().heapSize(null)).getMessage());
        assertEquals("reducers", assertThrows(NullPointerException.class, () -> ProcessPool.builder().reducers(null)).getMessage());
        assertEquals("options", assertThrows(NullPointerException.class,
            () -> ProcessPool.builder().jvmOptions((String[]) null)).getMessage());
        assertEquals("a JVM option is null", assertThrows(NullPointerException.class,
            () -> ProcessPool.builder().jvmOptions("-Xss1m", null)).getMessage());
        final NullPointerException noId = assertThrows(NullPointerException.class, () -> Reducers.defaults().with(new NoIdReducer()));
        assertTrue(noId.getMessage().endsWith("NoIdReducer.id() is null"), noId.getMessage());
    }

    @Test
    void mapOfANullListIsRefusedByName() {
        try (ProcessPool pool = ProcessPool.create(1)) {
            assertEquals("args", assertThrows(NullPointerException.class, () -> pool.map((Integer x) -> x, null)).getMessage());
        }
    }

    @Test
    void aJvmOptionWithLineBreaksReachesTheWorkersIntact() throws Exception {
        // before: the line break ended the option's line in the workers' argument file, and no worker started
        // ("Could not find or load main class b")
        final String value = "a\nb\r\nc \"quoted\" back\\slash\\n";
        try (ProcessPool pool = ProcessPool.builder().workers(1).jvmOptions("-Dsharray.test.option=" + value).build()) {
            assertEquals(value, pool.submit((String key) -> System.getProperty(key), "sharray.test.option").get());
        }
    }

    @Test
    void aWorkerThatCannotStartSaysWhatItsJvmPrinted() {
        // the JVM prints "Too small maximum heap" on stdout; before, the message ended "last stderr lines: []"
        final IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> ProcessPool.builder().workers(1).jvmOptions("-Xmx1k").build());
        assertTrue(e.getMessage().contains("failed to start") && e.getMessage().contains("Too small maximum heap"),
            e.getMessage());
        assertEquals(List.of(), ProcessHandle.current().children().filter(ProcessHandle::isAlive).toList(),
            "the worker that failed is gone");
    }

    @Test
    void aWorkerThatDiesAtStartIsAPlainIllegalStateException() {
        // before: the private WorkerStarter$WorkerDiedAtStart, a type the caller could not name
        final IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> ProcessPool.builder().workers(1).jvmOptions("-XX:+BogusOptionOfATest").build());
        assertEquals(IllegalStateException.class, e.getClass(), e.toString());
        assertTrue(e.getMessage().contains("failed to start") && e.getMessage().contains("BogusOptionOfATest"),
            e.getMessage());
        assertEquals(List.of(), ProcessHandle.current().children().filter(ProcessHandle::isAlive).toList(),
            "the worker that failed is gone");
    }

    @Test
    void aReducerOfAPackagePrivateClassWithAPublicConstructorWorksInTheWorkers() throws Exception {
        // before: the builder accepted it, and every worker failed to start with "IllegalAccessException: class
        // dev.sharray.pool.WorkerMain cannot access a member of class ...PackagePrivateReducer with modifiers "public""
        try (ProcessPool pool = ProcessPool.builder().workers(1).reducers(Reducers.defaults().with(Celsius.reducer()))
            .build()) {
            final Celsius back = pool.submit((Celsius c) -> new Celsius(c.degrees() + 1), new Celsius(20)).get();
            assertEquals(21, back.degrees());
        }
    }

    /** A reducer whose id is null. */
    public static final class NoIdReducer implements Reducer<Integer> {
        @Override
        public Class<Integer> type() {
            return Integer.class;
        }

        @Override
        public String id() {
            return null;
        }

        @Override
        public void write(Integer value, ValueWriter out) {
            out.writeInt(value);
        }

        @Override
        public Integer read(ValueReader in) {
            return in.readInt();
        }
    }
}
