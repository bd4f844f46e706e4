/*
 * ModelDriver: ARX's optimal anonymization of a table under its risk-based privacy models
 * (average re-identification risk, sample uniqueness, population uniqueness), printed as
 * one JSON object per case: the optimum's levels, score and suppressed rows. The expected
 * values of cellsafe's risk-based models (tests/arx/models.jsonl, made by arx.sh models).
 *
 *   java -cp arx.jar:OUT ModelDriver --data adult.csv --delimiter ';' --qi sex,age,...
 *        --suppression 0.05 --metric loss|dm [--k K]
 *        --model avg=0.05|avg=0.05:0.2:0.01|uniq=0.01|pop=0.01:dankar:301620
 */

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.deidentifier.arx.ARXAnonymizer;
import org.deidentifier.arx.ARXConfiguration;
import org.deidentifier.arx.ARXLattice.ARXNode;
import org.deidentifier.arx.ARXPopulationModel;
import org.deidentifier.arx.ARXResult;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataHandle;
import org.deidentifier.arx.criteria.AverageReidentificationRisk;
import org.deidentifier.arx.criteria.KAnonymity;
import org.deidentifier.arx.criteria.PopulationUniqueness;
import org.deidentifier.arx.criteria.SampleUniqueness;
import org.deidentifier.arx.metric.Metric;
import org.deidentifier.arx.metric.Metric.AggregateFunction;
import org.deidentifier.arx.risk.RiskModelPopulationUniqueness.PopulationUniquenessModel;

public final class ModelDriver {

    public static void main(String[] args) throws Exception {
        String data = null, metric = "loss", model = null;
        char delimiter = ';';
        List<String> qis = new ArrayList<>();
        double suppression = 0d;
        int k = 0;
        for (int i = 0; i + 1 < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
            case "--data": data = v; break;
            case "--delimiter": delimiter = v.charAt(0); break;
            case "--qi": for (String q : v.split(",")) qis.add(q); break;
            case "--suppression": suppression = Double.parseDouble(v); break;
            case "--metric": metric = v; break;
            case "--k": k = Integer.parseInt(v); break;
            case "--model": model = v; break;
            default: throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        Data d = Tables.load(data, delimiter, qis, null);
        ARXConfiguration config = ARXConfiguration.create();
        config.setSuppressionLimit(suppression);
        config.setQualityModel(metric.equals("dm") ? Metric.createDiscernabilityMetric(false)
                                                    : Metric.createLossMetric(0.5d, AggregateFunction.GEOMETRIC_MEAN));
        if (k > 0) config.addPrivacyModel(new KAnonymity(k));
        String[] m = model.split("=", 2);
        String[] p = m[1].split(":");
        double t = Double.parseDouble(p[0]);
        switch (m[0]) {
        case "avg":
            // avg=T or avg=T:HIGHEST:RECORDS_AT_RISK
            config.addPrivacyModel(p.length == 3
                ? new AverageReidentificationRisk(t, Double.parseDouble(p[1]), Double.parseDouble(p[2]))
                : new AverageReidentificationRisk(t));
            break;
        case "uniq": config.addPrivacyModel(new SampleUniqueness(t)); break;
        case "pop":
            config.addPrivacyModel(new PopulationUniqueness(t,
                PopulationUniquenessModel.valueOf(p[1].toUpperCase(Locale.ROOT)),
                ARXPopulationModel.create(Long.parseLong(p[2]))));
            break;
        default: throw new IllegalArgumentException("unknown model " + model);
        }
        ARXResult result = new ARXAnonymizer().anonymize(d, config);
        ARXNode opt = result.getGlobalOptimum();
        StringBuilder b = new StringBuilder("{");
        b.append("\"model\":\"").append(model).append("\"");
        b.append(",\"k\":").append(k);
        b.append(",\"suppression\":").append(suppression);
        b.append(",\"metric\":\"").append(metric).append("\"");
        if (opt == null) {
            b.append(",\"levels\":null}");
            System.out.println(b);
            return;
        }
        int[] levels = opt.getTransformation();
        b.append(",\"levels\":").append(Tables.array(levels));
        b.append(",\"score\":\"").append(opt.getHighestScore().toString()).append("\"");
        DataHandle out = result.getOutput();
        int suppressed = 0;
        for (int r = 0; r < out.getNumRows(); r++) if (out.isOutlier(r)) suppressed++;
        b.append(",\"suppressed_rows\":").append(suppressed);
        b.append("}");
        System.out.println(b);
    }
}
