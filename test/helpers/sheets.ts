/** Product pages of one template (the sheet veto, core sheet.ts): another item, and the first one posted again reformatted. */
const page = (memory: string, colon = "：", space = "") =>
  `【华硕官方旗舰店】华硕无畏 15英寸轻薄笔记本电脑 星空灰\n处理器${colon}Intel Core i5-13500H\n内存${colon}${memory}\n硬盘${colon}512GB${space} NVMe SSD\n屏幕${colon}15.6英寸 2.8K OLED\n重量${colon}约1.7kg\n适用场景${colon}商务办公、学习网课。\n售后服务${colon}全国联保，7天无理由退货，整机保修2年。`;

export const SHEET_FIRST = page("16GB LPDDR5");
/** The same template, another item: 32 GB of memory. */
export const SHEET_OTHER_ITEM = page("32GB LPDDR5");
/** The first page again: ASCII colons, spacing changed. */
export const SHEET_AGAIN = page("16 GB LPDDR5", ": ", " ");
