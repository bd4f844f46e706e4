/*
 * DPresenceDriver: ARX's optimal anonymization of the bundled Adult data under
 * delta-presence with a research subset (DPresence(dmin, dmax, DataSubset)), printed as one
 * JSON object per case: the optimum's levels, score and suppressed rows. The expected
 * values of cellsafe's delta-presence (tests/arx/dpresence.jsonl, made by arx.sh dpresence).
 *
 *   java -cp arx.jar:OUT DPresenceDriver --data adult.csv --delimiter ';' --qi sex,age,...
 *        --subset ROWS_FILE --suppression 0.05 --metric aecs|entropy|entropy-mono|loss|dm
 *        --dmin 0.05 --dmax 0.15 [--k 2]
 */

import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.deidentifier.arx.ARXAnonymizer;
import org.deidentifier.arx.ARXConfiguration;
import org.deidentifier.arx.ARXLattice.ARXNode;
import org.deidentifier.arx.ARXResult;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataHandle;
import org.deidentifier.arx.DataSubset;
import org.deidentifier.arx.criteria.DPresence;
import org.deidentifier.arx.criteria.KAnonymity;
import org.deidentifier.arx.metric.Metric;
import org.deidentifier.arx.metric.Metric.AggregateFunction;

public final class DPresenceDriver {

    public static void main(String[] args) throws Exception {
        String data = null, metric = "aecs", subsetFile = null;
        char delimiter = ';';
        List<String> qis = new ArrayList<>();
        double suppression = 0d, dmin = 0d, dmax = 1d;
        int k = 0;
        for (int i = 0; i + 1 < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
            case "--data": data = v; break;
            case "--delimiter": delimiter = v.charAt(0); break;
            case "--qi": for (String q : v.split(",")) qis.add(q); break;
            case "--subset": subsetFile = v; break;
            case "--suppression": suppression = Double.parseDouble(v); break;
            case "--metric": metric = v; break;
            case "--dmin": dmin = Double.parseDouble(v); break;
            case "--dmax": dmax = Double.parseDouble(v); break;
            case "--k": k = Integer.parseInt(v); break;
            default: throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        Data d = Tables.load(data, delimiter, qis, null);
        Set<Integer> rows = new HashSet<>();
        for (String line : Files.readAllLines(new File(subsetFile).toPath())) {
            line = line.trim();
            if (!line.isEmpty() && !line.startsWith("#")) rows.add(Integer.parseInt(line));
        }
        Metric<?> m;
        switch (metric) {
        case "aecs": m = Metric.createAECSMetric(); break;
        case "entropy-mono": m = Metric.createPrecomputedEntropyMetric(0.1d, true); break;
        case "loss": m = Metric.createLossMetric(0.5d, AggregateFunction.GEOMETRIC_MEAN); break;
        case "dm": m = Metric.createDiscernabilityMetric(false); break;
        default: m = Metric.createPrecomputedEntropyMetric(0.1d, false); break;
        }
        ARXConfiguration config = ARXConfiguration.create(suppression, m);
        config.addPrivacyModel(new DPresence(dmin, dmax, DataSubset.create(d, rows)));
        if (k > 0) config.addPrivacyModel(new KAnonymity(k));
        ARXResult result = new ARXAnonymizer().anonymize(d, config);
        ARXNode opt = result.getGlobalOptimum();
        StringBuilder b = new StringBuilder("{");
        b.append("\"metric\":\"").append(metric).append("\"");
        b.append(",\"suppression\":").append(suppression);
        b.append(",\"dmin\":").append(dmin).append(",\"dmax\":").append(dmax);
        if (k > 0) b.append(",\"k\":").append(k);
        if (opt == null) {
            System.out.println(b.append(",\"levels\":null}"));
            return;
        }
        int[] levels = opt.getTransformation();
        b.append(",\"levels\":").append(Tables.array(levels));
        b.append(",\"score\":\"").append(opt.getHighestScore().toString()).append("\"");
        DataHandle out = result.getOutput();
        int suppressed = 0, released = 0;
        for (int r = 0; r < out.getNumRows(); r++) {
            if (out.isOutlier(r)) suppressed++;
        }
        b.append(",\"suppressed_rows\":").append(suppressed);
        b.append(",\"output_rows\":").append(out.getNumRows());
        System.out.println(b.append('}'));
    }
}
