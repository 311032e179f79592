/** The alert examples (issue 13) name the neardup index pattern and fields of the data contract. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import componentTemplate from "../../../mappings/component-template.neardup.json" with { type: "json" };

const neardup = componentTemplate.template.mappings.properties.neardup.properties as Record<string, { type: string }>;

describe("alert examples", () => {
  it("the ElastAlert rule measures the share of neardup.status = duplicate over neardup.timestamp", () => {
    const rule = readFileSync("examples/alerts/elastalert-duplicate-rate.yaml", "utf8");
    expect(rule).toMatch(/^type: percentage_match$/m);
    expect(rule).toMatch(/^index: neardup-documents\*$/m);
    expect(rule).toMatch(/^timestamp_field: neardup\.timestamp$/m);
    expect(rule).toMatch(/^ {6}neardup\.status: duplicate$/m);
    expect(rule).toMatch(/^max_percentage: \d+$/m);
    expect(neardup.timestamp!.type).toBe("date");
    expect(neardup.status!.type).toBe("keyword");
  });

  it("the Kibana rule is an ES|QL Elasticsearch query rule on the same fields", () => {
    const rule = JSON.parse(readFileSync("examples/alerts/kibana-duplicate-rate-rule.json", "utf8"));
    expect(rule).toMatchObject({ rule_type_id: ".es-query", params: { searchType: "esqlQuery", timeField: "neardup.timestamp", threshold: [0], thresholdComparator: ">" } });
    expect(rule.params.esqlQuery.esql).toMatch(/^FROM neardup-documents\* \| WHERE neardup\.timestamp >= NOW\(\) - 1 hour .*neardup\.status == "duplicate".* rate > 0\.3$/);
  });
});
