package dev.sharray.bench.peers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The rows of several whole repetitions of a harness run ({@code --repeat N}), side by side: each row's
 * speedup (its pair-by-pair median) in every repetition, and their spread. A bar that is a ratio of two close
 * figures on a shared 2-core machine is read from how often it holds over minutes, not from one minute.
 */
final class Repetitions {
    /** Per row id, in the order the rows ran: the row and its speedup in each repetition (NaN: no figure). */
    private final Map<String, List<Double>> speedups = new LinkedHashMap<>();
    private final Map<String, Row> rows = new LinkedHashMap<>();
    private int count;

    /** Adds one repetition's results. */
    void add(List<PeerHarness.Result> results) {
        for (PeerHarness.Result r : results) {
            rows.putIfAbsent(r.row.id(), r.row);
            final List<Double> list = speedups.computeIfAbsent(r.row.id(), id -> new ArrayList<>());
            while (list.size() < count) {
                list.add(Double.NaN); // the row did not run in an earlier repetition
            }
            final double[] ratios = r.ratios();
            list.add(ratios.length == 0 ? Double.NaN : Stats.median(ratios));
        }
        count++;
    }

    /** @return one markdown line per row: its speedup in each repetition, then the lowest, median and highest */
    String markdownTable() {
        final StringBuilder b = new StringBuilder("| row | speedup in each of ").append(count)
            .append(" repetitions (pair-by-pair median) | lowest / median / highest | bar |\n|---|---|---|---|\n");
        for (Map.Entry<String, List<Double>> e : speedups.entrySet()) {
            final double[] measured = e.getValue().stream().mapToDouble(Double::doubleValue)
                .filter(x -> !Double.isNaN(x)).toArray();
            final List<String> each = new ArrayList<>();
            for (double x : e.getValue()) {
                each.add(Double.isNaN(x) ? "n/a" : Report.fmt(x) + "×");
            }
            b.append("| ").append(e.getKey()).append(" | ").append(String.join(", ", each)).append(" | ")
                .append(measured.length == 0 ? "n/a" : String.format(Locale.ROOT, "%s× / %s× / %s×",
                    Report.fmt(Stats.min(measured)), Report.fmt(Stats.median(measured)), Report.fmt(Stats.max(measured))))
                .append(" | ").append(rows.get(e.getKey()).bar()).append(" |\n");
        }
        return b.toString();
    }

    /** Writes {@code repetition,id,speedup} lines (repetitions from 1, speedups to 4 decimals). */
    void writeCsv(Path csv) throws IOException {
        Files.createDirectories(csv.getParent());
        final StringBuilder b = new StringBuilder("repetition,id,speedup\n");
        for (Map.Entry<String, List<Double>> e : speedups.entrySet()) {
            for (int i = 0; i < e.getValue().size(); i++) {
                final double x = e.getValue().get(i);
                if (!Double.isNaN(x)) {
                    b.append(i + 1).append(',').append(e.getKey()).append(',')
                        .append(String.format(Locale.ROOT, "%.4f", x)).append('\n');
                }
            }
        }
        Files.writeString(csv, b.toString(), StandardCharsets.UTF_8);
    }
}
