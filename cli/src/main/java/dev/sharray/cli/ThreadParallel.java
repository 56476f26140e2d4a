package dev.sharray.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/** {@link Parallel} on a fixed pool of daemon threads in this JVM. */
final class ThreadParallel implements Parallel {
    private final int workers;
    private final ExecutorService executor;

    ThreadParallel(int workers) {
        this.workers = workers;
        AtomicInteger seq = new AtomicInteger();
        this.executor = Executors.newFixedThreadPool(workers, r -> {
            Thread t = new Thread(r, "sharray-worker-" + seq.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public int workers() {
        return workers;
    }

    @Override
    public String describe() {
        return workers + (workers == 1 ? " thread" : " threads");
    }

    @Override
    public <T, R> List<R> map(ParallelTask<T, R> task, List<? extends T> args) {
        List<Future<R>> futures = new ArrayList<>(args.size());
        for (T a : args) {
            futures.add(executor.submit(() -> task.apply(a)));
        }
        List<R> results = new ArrayList<>(args.size());
        Throwable failure = null;
        for (Future<R> f : futures) {
            try {
                results.add(f.get());
            } catch (ExecutionException e) {
                if (failure == null) {
                    failure = e.getCause();
                }
                results.add(null);
            } catch (InterruptedException e) {
                // never return while a task runs: the caller frees the memory the tasks read as soon as we do
                // (and interrupting them would close the file channels they write)
                awaitAll(futures);
                Thread.currentThread().interrupt();
                throw new CliException("interrupted", e);
            }
        }
        if (failure instanceof RuntimeException re) {
            throw re;
        }
        if (failure instanceof Error err) {
            throw err;
        }
        if (failure != null) {
            throw new TaskFailedException(failure);
        }
        return results;
    }

    /** Waits until every task has ended, whatever the outcome, ignoring interrupts until then. */
    private static void awaitAll(List<? extends Future<?>> futures) {
        boolean interrupted = false;
        for (Future<?> f : futures) {
            while (true) {
                try {
                    f.get();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException | java.util.concurrent.CancellationException e) {
                    break;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
