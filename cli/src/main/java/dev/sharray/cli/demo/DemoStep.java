package dev.sharray.cli.demo;

/**
 * One row of the demo table.
 *
 * @param name        the step
 * @param bytes       bytes the step processed
 * @param seconds     wall time
 * @param copyHandoff bytes a copy-based handoff (pickling chunks to workers and results back) would move,
 *                    or -1 when the step involves no handoff
 */
record DemoStep(String name, long bytes, double seconds, long copyHandoff) {
}
