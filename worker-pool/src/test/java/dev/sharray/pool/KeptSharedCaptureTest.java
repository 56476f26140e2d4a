package dev.sharray.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sharray.NdArray;
import dev.sharray.reducers.Reducer;
import dev.sharray.reducers.Reducers;
import dev.sharray.reducers.ValueReader;
import dev.sharray.reducers.ValueWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A captured value whose reducer reads its big nested array with the public {@link ValueReader#readValueKeepingShared()}
 * (mapping the pool's copy rather than copying it to the heap) must still run in a map call.
 */
class KeptSharedCaptureTest {

    /** A user type holding one big array. */
    public record Column(Object values) {
    }

    /** Writes the array nested; reads it back kept shared where the sender copied it into shared memory. */
    public static final class ColumnReducer implements Reducer<Column> {
        public ColumnReducer() {
        }

        @Override
        public Class<Column> type() {
            return Column.class;
        }

        @Override
        public void write(Column value, ValueWriter out) {
            out.writeValue(value.values());
        }

        @Override
        public Column read(ValueReader in) {
            return new Column(in.readValueKeepingShared());
        }
    }

    @Test
    @Timeout(120)
    void aCapturedValueReadKeepingItsSharedCopyRunsInAMapCall() {
        try (ProcessPool pool = ProcessPool.builder().workers(2).heapSize("128m").maxBytes(1024)
                .reducers(Reducers.defaults().with(new ColumnReducer())).build()) {
            final double[] big = new double[64 * 1024];
            for (int i = 0; i < big.length; i++) {
                big[i] = i;
            }
            final Column column = new Column(big);
            final RemoteFunction<Integer, Double> read = x -> ((NdArray) column.values()).getDouble(x * 1000L);
            final List<Integer> args = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                args.add(i % 60);
            }
            // several calls: short tasks of a later call go several per message (TaskGrouping), each its own decode
            for (int call = 0; call < 3; call++) {
                final List<Double> results = pool.map(read, args);
                for (int i = 0; i < args.size(); i++) {
                    assertEquals(args.get(i) * 1000.0, results.get(i), "call " + call + ", task " + i);
                }
            }
        }
    }
}
