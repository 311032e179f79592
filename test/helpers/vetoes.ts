/** Texts the record and sheet vetoes tell apart (core record.ts, sheet.ts), for the service and engine tests. */

/** Product pages of one template (the sheet veto): another item, and the first one posted again reformatted. */
const page = (memory: string, colon = "：", space = "") =>
  `【华硕官方旗舰店】华硕无畏 15英寸轻薄笔记本电脑 星空灰\n处理器${colon}Intel Core i5-13500H\n内存${colon}${memory}\n硬盘${colon}512GB${space} NVMe SSD\n屏幕${colon}15.6英寸 2.8K OLED\n重量${colon}约1.7kg\n适用场景${colon}商务办公、学习网课。\n售后服务${colon}全国联保，7天无理由退货，整机保修2年。`;

export interface VetoCase {
  name: string;
  first: string;
  /** The same template about another event or item: an original. */
  other: string;
  /** The first one again: its duplicate. */
  again: string;
  /** The stored sketch's format byte (docs/fingerprint-spec.md §10). */
  format: number;
  /** The verdict option that turns the veto off. */
  option: "recordVeto" | "sheetVeto";
}

export const VETO_CASES: VetoCase[] = [
  {
    name: "record",
    first: "2024-12-28T04:36:57.342Z ERROR [order-service] Payment failed for order 4381108153: card declined (code 301), user=jenkins",
    other: "2024-12-28T04:37:17.203Z ERROR [order-service] Payment failed for order 4381108153: card declined (code 301), user=postgres",
    again: "2024-12-28T04:39:02.911Z ERROR [order-service] Payment failed for order 4381108153: card declined (code 301), user=jenkins",
    format: 3,
    option: "recordVeto",
  },
  { name: "sheet", first: page("16GB LPDDR5"), other: page("32GB LPDDR5"), again: page("16 GB LPDDR5", ": ", " "), format: 4, option: "sheetVeto" },
];
