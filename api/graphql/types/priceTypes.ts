import { Field, Float, InputType, Int, ObjectType } from 'type-graphql';
import { DateTimeScalar } from '../dateTimeScalar.ts';

@ObjectType()
export class PriceThreshold {
  @Field(() => Int, { description: 'Above this many prompt tokens (llm.token_count.prompt) the higher price applies' })
  promptTokens!: number;

  @Field(() => Float)
  usdPerToken!: number;
}

@ObjectType()
export class TokenPrice {
  @Field(() => String, { description: 'input, output, cache_read, cache_write, audio_prompt or audio_completion' })
  tokenType!: string;

  @Field(() => Float)
  usdPerToken!: number;

  @Field(() => PriceThreshold, { nullable: true })
  threshold!: PriceThreshold | null;
}

@ObjectType({ description: "One version of a model's prices: the built-in table's, or an admin's from a date on" })
export class ModelPrice {
  @Field(() => String)
  model!: string;

  @Field(() => String, { description: 'A regular expression a span’s llm.model_name must match whole (case-insensitive)' })
  namePattern!: string;

  @Field(() => String, { nullable: true })
  provider!: string | null;

  @Field(() => DateTimeScalar, { nullable: true, description: 'null: the built-in price, in force since the beginning' })
  effectiveFrom!: string | null;

  @Field(() => String, { description: 'built_in or custom' })
  source!: string;

  @Field(() => [TokenPrice])
  prices!: TokenPrice[];

  @Field(() => String, { nullable: true, description: 'The actor who set it (custom prices)' })
  setBy!: string | null;

  @Field(() => DateTimeScalar, { nullable: true })
  setAt!: string | null;
}

@InputType()
export class PriceThresholdInput {
  @Field(() => Int)
  promptTokens!: number;

  @Field(() => Float)
  usdPerToken!: number;
}

@InputType()
export class TokenPriceInput {
  @Field(() => String)
  tokenType!: string;

  @Field(() => Float)
  usdPerToken!: number;

  @Field(() => PriceThresholdInput, { nullable: true })
  threshold?: PriceThresholdInput | null;
}

@InputType()
export class SetModelPriceInput {
  @Field(() => String)
  model!: string;

  @Field(() => String)
  namePattern!: string;

  @Field(() => String, { nullable: true })
  provider?: string | null;

  @Field(() => String, { description: 'ISO 8601 time from which the price is in force' })
  effectiveFrom!: string;

  @Field(() => [TokenPriceInput])
  prices!: TokenPriceInput[];
}
