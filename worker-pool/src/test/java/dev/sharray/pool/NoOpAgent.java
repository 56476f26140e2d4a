package dev.sharray.pool;

import java.lang.instrument.Instrumentation;

/** A Java agent that does nothing, packed into a jar by {@link ClassDataArchiveTest} for workers' {@code -javaagent}. */
public final class NoOpAgent {
    private NoOpAgent() {
    }

    /**
     * @param args ignored
     * @param inst ignored
     */
    public static void premain(String args, Instrumentation inst) {
        // an agent's mere presence is what matters (as JaCoCo's or an APM agent's would be)
    }
}
