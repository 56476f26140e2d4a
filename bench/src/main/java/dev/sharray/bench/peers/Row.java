package dev.sharray.bench.peers;

/**
 * One line of the side-by-side table: the same workload run by a peer and by sharray.
 *
 * @param id short stable id (CSV key)
 * @param title what is measured
 * @param params parameters handed to both sides
 * @param bytesPerRun bytes processed per run, for a GB/s column (0: not a throughput row)
 * @param peerLabel who the peer is
 * @param peerImpl {@code py:<name>} (a workload of bench/peers/joblib_peer.py) or {@code java:<class>}
 * @param sharrayImpl {@code java:<class>} implementing {@link Workload}
 * @param bar the performance bar this row is judged by (DESIGN.md), for the reader
 * @param minRuns measured runs per side this row takes at least (0: as {@code --runs} says)
 */
public record Row(String id, String title, Params params, long bytesPerRun, String peerLabel, String peerImpl,
                  String sharrayImpl, String bar, int minRuns) {
    /** A row measured as often as the harness's {@code --runs} says. */
    public Row(String id, String title, Params params, long bytesPerRun, String peerLabel, String peerImpl,
               String sharrayImpl, String bar) {
        this(id, title, params, bytesPerRun, peerLabel, peerImpl, sharrayImpl, bar, 0);
    }

    /**
     * @param runs measured runs per side this row takes at least, whatever {@code --runs} says: for a cheap row
     *             whose bar is a ratio of two close figures, so that a few disturbed pairs do not move its median
     * @return this row with that minimum
     */
    public Row measuredAtLeast(int runs) {
        return new Row(id, title, params, bytesPerRun, peerLabel, peerImpl, sharrayImpl, bar, runs);
    }

    /**
     * @param requested measured runs per side the harness was asked for ({@code --runs})
     * @return measured runs per side this row takes
     */
    public int measuredRuns(int requested) {
        return Math.max(requested, minRuns);
    }
}
