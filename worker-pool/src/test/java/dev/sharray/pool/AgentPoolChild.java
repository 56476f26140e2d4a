package dev.sharray.pool;

import java.util.List;

/**
 * A parent JVM for {@link ClassDataArchiveTest}, started with jars only on its classpath (so its pool would use a
 * worker class-data archive): builds a pool whose workers run with the JVM options given as arguments, runs one
 * task and prints {@code RESULT <answer>}.
 */
public final class AgentPoolChild {
    private AgentPoolChild() {
    }

    public static void main(String[] args) {
        try (ProcessPool pool = ProcessPool.builder().workers(1).jvmOptions(args).build()) {
            System.out.println("RESULT " + pool.map((Integer x) -> x + 1, List.of(41)));
        }
    }
}
