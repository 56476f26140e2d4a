package dev.sharray.bench.peers;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Several repetitions of the harness's rows are summed up row by row, each repetition by its pair-by-pair median. */
class RepetitionsTest {
    private static final Row SCALING = new Row("scaling.x", "2 against 1", Params.parse(""), 0, "one", "java:A",
        "java:B", "2 >= 1.7x 1");
    private static final Row OTHER = new Row("other", "other", Params.parse(""), 0, "peer", "java:A", "java:B", "none");

    /** @return a result whose pairs have the given peer and sharray seconds */
    private static PeerHarness.Result result(Row row, double[] peer, double[] sharray) {
        final PeerHarness.Result r = new PeerHarness.Result(row);
        for (double p : peer) {
            r.peer.add(p);
        }
        for (double s : sharray) {
            r.sharray.add(s);
        }
        return r;
    }

    @Test
    void eachRepetitionCountsByItsMedianRatioAndTheSpreadIsOverRepetitions(@TempDir Path dir) throws Exception {
        final Repetitions repetitions = new Repetitions();
        // ratios 2, 1.5, 1.8: median 1.8
        repetitions.add(List.of(result(SCALING, new double[] {40, 30, 36}, new double[] {20, 20, 20}),
            result(OTHER, new double[] {1}, new double[] {1})));
        // ratios 1.2, 1.6, 1.4, 1.0: median 1.3
        repetitions.add(List.of(result(SCALING, new double[] {12, 16, 14, 10}, new double[] {10, 10, 10, 10})));
        // ratio 1.9
        repetitions.add(List.of(result(SCALING, new double[] {19}, new double[] {10}),
            result(OTHER, new double[] {3}, new double[] {1})));

        final String table = repetitions.markdownTable();
        assertTrue(table.contains("| scaling.x | 1.80×, 1.30×, 1.90× | 1.30× / 1.80× / 1.90× | 2 >= 1.7x 1 |"), table);
        assertTrue(table.contains("| other | 1.00×, n/a, 3.00× | 1.00× / 2.00× / 3.00× | none |"), table);
        assertTrue(table.contains("each of 3 repetitions"), table);

        final Path csv = dir.resolve("target/repeats.csv");
        repetitions.writeCsv(csv);
        assertEquals(List.of("repetition,id,speedup", "1,scaling.x,1.8000", "2,scaling.x,1.3000", "3,scaling.x,1.9000",
            "1,other,1.0000", "3,other,3.0000"), Files.readAllLines(csv));
    }

    @Test
    void aRowFirstSeenInALaterRepetitionIsMarkedMissingInTheEarlierOnes() {
        final Repetitions repetitions = new Repetitions();
        repetitions.add(List.of(result(SCALING, new double[] {2}, new double[] {1})));
        repetitions.add(List.of(result(SCALING, new double[] {2}, new double[] {1}), result(OTHER, new double[] {4}, new double[] {2})));
        assertTrue(repetitions.markdownTable().contains("| other | n/a, 2.00× | 2.00× / 2.00× / 2.00× | none |"),
            repetitions.markdownTable());
    }
}
