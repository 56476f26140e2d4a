package dev.sharray.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sharray.DType;
import dev.sharray.MappedRegion;
import dev.sharray.SharedArray;
import org.junit.jupiter.api.Test;

/**
 * On JDK 22 and later a worker maps its ring file and the arrays of its tasks through arenas: the older
 * {@code MappedByteBuffer} route costs each worker JVM 20–25 ms of start on JDK 25 (see {@link MappedRegion}).
 */
class WorkerMappingRouteTest {
    @Test
    void aWorkerMapsItsRingAndItsTasksArraysThroughArenasOnJdk22AndLater() throws Exception {
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 1000)) {
            for (int i = 0; i < 1000; i++) {
                a.setDouble(i, (long) i);
            }
            final RemoteFunction<SharedArray, String> probe = x -> {
                x.setDouble(1.5, 0L); // written in place, through the worker's mapping
                return x.sum() + " " + MappedRegion.mapsThroughArenas() + " " + Runtime.version().feature();
            };
            try (ProcessPool pool = ProcessPool.builder().workers(1).heapSize("64m").build()) {
                final String[] answer = pool.submit(probe, a).get().split(" ");
                assertEquals(Double.toString(499_500 + 1.5), answer[0]);
                assertEquals(Integer.toString(Runtime.version().feature()), answer[2], "the worker runs the parent's JDK");
                assertEquals(Boolean.toString(Runtime.version().feature() >= 22), answer[1], "mapped through arenas");
            }
            assertEquals(1.5, a.getDouble(0L), "the parent sees the worker's write");
        }
    }
}
