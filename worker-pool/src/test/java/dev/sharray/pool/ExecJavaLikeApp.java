package dev.sharray.pool;

import java.util.concurrent.TimeUnit;

/** A program whose classes a child class loader holds ({@link ExecJavaLike}): builds a pool and runs a lambda. */
public final class ExecJavaLikeApp {
    private ExecJavaLikeApp() {
    }

    /** @param args nothing, or the workers' classpath for {@link ProcessPool.Builder#classpath} */
    public static void main(String[] args) throws Exception {
        final ProcessPool.Builder builder = ProcessPool.builder().workers(1);
        if (args.length > 0) {
            builder.classpath(args[0]);
        }
        try (ProcessPool pool = builder.build()) {
            final int base = 41;
            System.out.println("answer " + pool.submit((Integer x) -> x + base, 1).get(60, TimeUnit.SECONDS));
        }
    }
}
