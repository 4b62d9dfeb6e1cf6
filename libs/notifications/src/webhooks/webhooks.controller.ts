import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { Authenticated, type AuthenticatedUser, CurrentUser } from '@app/auth';
import { CreateWebhookInput, DeliveriesResponse, WebhookResponse, WebhookWithSecretResponse } from './dto/webhook.dto';
import { ApiCreateWebhook, ApiDeleteWebhook, ApiEnableWebhook, ApiListWebhookDeliveries, ApiListWebhooks, ApiRotateWebhookSecret } from './webhooks.openapi';
import { WebhooksService } from './webhooks.service';

@Controller('api/v2/webhooks')
@Authenticated()
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @ApiCreateWebhook()
  create(@Body() body: CreateWebhookInput, @CurrentUser() user: AuthenticatedUser): Promise<WebhookWithSecretResponse> {
    return this.webhooks.create(body, user);
  }

  @Get()
  @ApiListWebhooks()
  list(@CurrentUser() user: AuthenticatedUser): Promise<WebhookResponse[]> {
    return this.webhooks.list(user);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiDeleteWebhook()
  delete(@Param('id') id: string, @CurrentUser() user: AuthenticatedUser): Promise<void> {
    return this.webhooks.delete(id, user);
  }

  @Post(':id/rotate_secret')
  @HttpCode(200)
  @ApiRotateWebhookSecret()
  rotateSecret(@Param('id') id: string, @CurrentUser() user: AuthenticatedUser): Promise<WebhookWithSecretResponse> {
    return this.webhooks.rotateSecret(id, user);
  }

  @Post(':id/enable')
  @HttpCode(200)
  @ApiEnableWebhook()
  enable(@Param('id') id: string, @CurrentUser() user: AuthenticatedUser): Promise<WebhookResponse> {
    return this.webhooks.enable(id, user);
  }

  @Get(':id/deliveries')
  @ApiListWebhookDeliveries()
  deliveries(@Param('id') id: string, @CurrentUser() user: AuthenticatedUser): Promise<DeliveriesResponse> {
    return this.webhooks.deliveries(id, user);
  }
}
