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
 */
public record Row(String id, String title, Params params, long bytesPerRun, String peerLabel, String peerImpl,
                  String sharrayImpl, String bar) {
}
