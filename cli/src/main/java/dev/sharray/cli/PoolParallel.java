package dev.sharray.cli;

import dev.sharray.pool.ProcessPool;
import dev.sharray.pool.RemoteTaskException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** {@link Parallel} on a {@link ProcessPool} of worker JVMs: shared arrays cross as descriptors, never copied. */
final class PoolParallel implements Parallel {
    private final ProcessPool pool;
    private final int workers;

    PoolParallel(int workers, Workload workload) {
        this.workers = workers;
        List<String> options = new ArrayList<>();
        if (workload == Workload.NATIVE_LOOPS) {
            options.add("-XX:TieredStopAtLevel=1");
        }
        for (String p : new String[] {"sharray.tempFolder", "sharray.leakDetection"}) {
            String v = System.getProperty(p);
            if (v != null) {
                options.add("-D" + p + "=" + v);
            }
        }
        this.pool = ProcessPool.builder().workers(workers).jvmOptions(options.toArray(new String[0])).build();
    }

    @Override
    public int workers() {
        return workers;
    }

    @Override
    public String describe() {
        return workers + (workers == 1 ? " worker JVM" : " worker JVMs");
    }

    /**
     * {@inheritDoc} A task's I/O failure (an {@link IOException} in the worker) is a {@link TaskFailedException} with
     * an {@link IOException} of the same message, as on threads, so commands report it the same way.
     */
    @Override
    public <T, R> List<R> map(ParallelTask<T, R> task, List<? extends T> args) {
        try {
            return pool.map(task, args);
        } catch (RemoteTaskException e) {
            if (isIoException(e.remoteClassName())) {
                throw new TaskFailedException(new IOException(e.remoteMessage(), e));
            }
            throw e;
        }
    }

    private static boolean isIoException(String className) {
        try {
            return IOException.class.isAssignableFrom(Class.forName(className, false, PoolParallel.class.getClassLoader()));
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    @Override
    public void close() {
        pool.close();
    }
}
