package dev.sharray.pool;

import dev.sharray.ChildJvm;
import dev.sharray.DType;
import dev.sharray.SharedArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Arrays a worker creates (a task's own, a large result it shares) go under the pool's temp folder, as the parent's
 * do: workers used their own default ({@code /dev/shm} or {@code /tmp}), which failed where that is small or
 * read-only and the folder the user chose had room.
 */
class WorkerTempFolderTest {
    private static final RemoteFunction<Integer, List<String>> CREATE_IN_WORKER = n -> {
        try (SharedArray a = SharedArray.create(DType.FLOAT64, n)) {
            return List.of(a.path().toString(), System.getProperty("java.io.tmpdir"));
        }
    };

    @Test
    void aWorkerCreatesItsArraysInThePoolsTempFolder(@TempDir Path dir) throws Exception {
        try (ProcessPool pool = ProcessPool.builder().workers(1).tempFolder(dir).build()) {
            final List<String> made = pool.submit(CREATE_IN_WORKER, 10).get(60, TimeUnit.SECONDS);
            assertTrue(made.get(0).startsWith(dir.toRealPath() + "/"), made.get(0) + " is not under " + dir);
            assertEquals(Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath().toString(), made.get(1));
        }
    }

    @Test
    void withoutOneAWorkerCreatesItsArraysInThisJvmsConfiguredFolder(@TempDir Path dir) throws Exception {
        final String before = System.getProperty("sharray.tempFolder");
        System.setProperty("sharray.tempFolder", dir.toString());
        try (ProcessPool pool = ProcessPool.create(1)) {
            final String path = pool.submit(CREATE_IN_WORKER, 10).get(60, TimeUnit.SECONDS).get(0);
            assertTrue(path.startsWith(dir.toRealPath() + "/"), path + " is not under " + dir);
        } finally {
            if (before == null) {
                System.clearProperty("sharray.tempFolder");
            } else {
                System.setProperty("sharray.tempFolder", before);
            }
        }
    }

    /**
     * A parent started with {@code -Duser.name}: its arrays are under {@code sharray-<that name>}, and its workers,
     * started without it, refused every one as outside a sharray folder (jvmvariety review 48).
     */
    @Test
    void workersOfAParentWithAUserNameOfItsOwnOpenItsArrays(@TempDir Path dir) throws Exception {
        try (ChildJvm parent = ChildJvm.start(OtherUserNameChild.class,
                List.of("-Duser.name=sharray-test-other", "-Dsharray.tempFolder=" + dir))) {
            assertEquals("folder sharray-sharray-test-other", parent.readLine());
            assertEquals("read 2.5", parent.readLine());
            assertEquals(0, parent.finish());
        }
    }
}
