package dev.sharray.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sharray.pool.RemoteTaskException;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Worker JVMs report a task's failure as threads do, so a command's message does not depend on --threads. */
class PoolParallelTest {
    @Test
    void anIoFailureInAWorkerIsATaskFailureWithTheSameMessageAndOtherFailuresStayRemote() {
        try (PoolParallel pool = new PoolParallel(1, Workload.NATIVE_LOOPS);
             Parallel threads = Parallels.local(1)) {
            ParallelTask<Integer, Integer> io = x -> {
                throw new IOException("the input shrank while encoding");
            };
            for (Parallel p : List.of(pool, threads)) {
                TaskFailedException e = assertThrows(TaskFailedException.class, () -> p.map(io, List.of(1)));
                assertInstanceOf(IOException.class, e.getCause(), p.describe());
                assertEquals("the input shrank while encoding", e.getCause().getMessage(), p.describe());
            }
            ParallelTask<Integer, Integer> bug = x -> {
                throw new IllegalStateException("a bug");
            };
            RemoteTaskException remote = assertThrows(RemoteTaskException.class, () -> pool.map(bug, List.of(1)));
            assertEquals("a bug", remote.remoteMessage(), "not an I/O failure: it stays the worker's exception");
        }
    }
}
