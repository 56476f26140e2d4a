package dev.sharray.pool;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import dev.sharray.SharedArrays;

/** A parent JVM for {@link ParentDeathTest}: starts a pool, reports its workers, then waits to be killed. */
public final class OrphanParent {
    private OrphanParent() {
    }

    public static void main(String[] args) throws Exception {
        final ProcessPool pool = ProcessPool.create(2);
        final SharedArray a = SharedArray.create(DType.FLOAT64, 1000);
        // a task is running and holds the array when the parent dies
        pool.submit((SharedArray x) -> {
            Thread.sleep(60_000);
            return x.sum();
        }, a);
        final StringBuilder sb = new StringBuilder("READY ").append(SharedArrays.processFolder());
        for (long pid : pool.workerPids()) {
            sb.append(' ').append(pid);
        }
        System.out.println(sb);
        System.out.flush();
        Thread.sleep(600_000);
    }
}
