package dev.sharray.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sharray.SharedArrays;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Once a worker has said hello, its ring file and argument file are unlinked (both sides keep them open or no
 * longer need them): a long-lived pool keeps no per-worker file in its folder.
 */
class StartedWorkerFilesTest {
    @Test
    void aStartedWorkersRingAndArgumentFilesAreGone(@TempDir Path root) throws Exception {
        try (ProcessPool pool = ProcessPool.builder().workers(2).tempFolder(root).build()) {
            assertEquals(3, pool.submit((Integer x) -> x + 1, 2).get());
            final Path folder = SharedArrays.processFolder(root);
            try (Stream<Path> files = Files.list(folder)) {
                final List<String> perWorker = files.map(p -> p.getFileName().toString())
                    .filter(n -> n.contains("-worker-")).toList();
                assertEquals(List.of(), perWorker, "files in " + folder);
            }
        }
    }
}
