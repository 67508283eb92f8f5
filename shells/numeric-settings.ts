import { IsInt, Max, Min, validateSync } from 'class-validator';

const PORT = 'PORT must be a port number';
const TRUST_PROXY = 'TRUST_PROXY must be true, false or the number of proxies in front of the service, 0 to 10';
const REFRESH_BUDGET = 'REFRESH_BUDGET_PER_HOUR must be a positive integer';

/**
 * The ranges of the numeric settings, declared once. Each field's message is the operator-facing refusal;
 * `checkNumbers` appends the text the operator actually set, so a typo is visible in the start-up error.
 */
export class NumericSettings {
  @IsInt({ message: PORT })
  @Min(0, { message: PORT })
  @Max(65535, { message: PORT })
  port = 0;

  @IsInt({ message: TRUST_PROXY })
  @Min(0, { message: TRUST_PROXY })
  @Max(10, { message: TRUST_PROXY })
  trustProxyHops = 0;

  @IsInt({ message: REFRESH_BUDGET })
  @Min(1, { message: REFRESH_BUDGET })
  refreshBudgetPerHour = 1;
}

type Numbers = { [K in keyof NumericSettings]: NumericSettings[K] };

/** Checks one numeric setting against its declared range; throws `<rule> (got "<raw>")` on the first miss. */
export function checkNumber<K extends keyof Numbers>(name: K, value: number, raw: string | undefined): number {
  const numbers = Object.assign(new NumericSettings(), { [name]: value });
  const [failure] = validateSync(numbers, { skipMissingProperties: false }).filter((error) => error.property === name);
  if (failure) throw new Error(`${Object.values(failure.constraints ?? {})[0]} (got "${raw}")`);
  return value;
}
